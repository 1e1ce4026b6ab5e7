-- record_configuration: remembers the configuration the compute that just finished ran under
-- (the file and every setting as text), for the reports and the next compute's comparison.
-- Grain: one row. Writes: compute_configuration. Reads: compute_runs.
-- Parameters: $1 source file (null = the defaults), $2 settings (jsonb array of {key, value}),
-- $3 fingerprint.
insert into compute_configuration (singleton, source, settings, fingerprint, run_id, recorded_at)
values (true, $1, $2::jsonb, $3, (select max(run_id) from compute_runs), now())
on conflict (singleton) do update
set source = excluded.source, settings = excluded.settings, fingerprint = excluded.fingerprint,
    run_id = excluded.run_id, recorded_at = excluded.recorded_at;
