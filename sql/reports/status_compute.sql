-- status_compute: the last compute run (when, full or incremental, what it rebuilt) and how many
-- runs there were. Grain: at most one row. Reads: compute_runs.
select to_char(finished_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as finished_at, mode,
       cohort_days, users, (select count(*) from compute_runs)::bigint as runs
from compute_runs
order by run_id desc
limit 1;
