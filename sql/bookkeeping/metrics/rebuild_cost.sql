-- rebuild_cost: what a full rebuild redoes (the users and cohort days computed so far) and how
-- long the last full compute (else the last compute) took, for the warning a configuration change gives.
-- Grain: one row. Reads: int_user_facts, compute_runs.
select (select count(*) from int_user_facts)::bigint as users,
       (select count(*) from (select distinct app_id, cohort_date from int_user_facts) d)::bigint as cohort_days,
       (select extract(epoch from finished_at - started_at)::float8
          from compute_runs where mode = 'full' order by run_id desc limit 1) as last_full_seconds,
       (select extract(epoch from finished_at - started_at)::float8
          from compute_runs order by run_id desc limit 1) as last_seconds
