-- build_workers: caps the parallel workers of the bulk merge's index builds (keys, months'
-- indexes) at $1, never above the server's own max_parallel_maintenance_workers; $2 true: for
-- the current transaction only, false: for the session. Returns the value set.
-- Grain: one row. Inputs: $1 the most workers a build may take (the loader's count from this
-- machine's processors), $2 whether the setting is local to the transaction.
select set_config('max_parallel_maintenance_workers',
                  least(current_setting('max_parallel_maintenance_workers')::int, $1::int)::text, $2::bool)
