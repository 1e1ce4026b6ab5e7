-- configuration_change: whether the configuration about to be used differs from the one the
-- metrics were last computed under, and that configuration's file and settings to compare with.
-- Grain: one row. Reads: computed_under (the metrics' row).
-- Parameters: $1 the new configuration's fingerprint.
select exists (select 1 from computed_under where lane = 'metrics' and fingerprint is distinct from $1) as changed,
       (select source from computed_under where lane = 'metrics') as previous_source,
       (select settings::text from computed_under where lane = 'metrics') as previous_settings
