-- configuration_change: whether the configuration about to be used differs from the one the
-- database was computed with, and the last compute's file and settings to compare with.
-- Grain: one row. Reads: compute_state, compute_configuration.
-- Parameters: $1 the new configuration's fingerprint.
select exists (select 1 from compute_state where config_fingerprint <> $1) as changed,
       (select source from compute_configuration) as previous_source,
       (select settings::text from compute_configuration) as previous_settings
