-- pending_work: what waits for compute: rows in the dirty ledger, and loaded ingest files no run
-- has folded in yet. Also where the friction step starts looking at telemetry again: the day
-- before the earliest of the ledger's cohort days and the new files' ux events (within the
-- optional --from/--to range; null when neither has any, e.g. a file of purchases only).
-- Whether the ledger holds a cohort day in that range also: without one, an unbounded run's
-- friction rescans only the sessions the new files touch, so the new telemetry's earliest day is
-- looked up only for a range or a marked ledger (friction_from is null otherwise).
-- Grain: one row (pending boolean, friction_from date, ledger_dirty boolean). Reads:
-- dirty_cohort_days, ingest_files, compute_files, raw_ux (the new files' rows through its index on
-- file_id).
-- Parameters: $1 from date, $2 to date (null = open).
with unfolded as (
    select f.file_id
    from ingest_files f
    where f.status = 'loaded'
      and not exists (select 1 from compute_files c where c.file_id = f.file_id)
), dirty_day as (
    select min(cohort_date) as day
    from dirty_cohort_days
    where ($1::date is null or cohort_date >= $1::date)
      and ($2::date is null or cohort_date <= $2::date)
), new_ux_day as (
    select min((u.occurred_at at time zone 'UTC')::date) as day
    from raw_ux u
    where ($1::date is not null or $2::date is not null or (select day from dirty_day) is not null)
      and u.file_id between (select min(file_id) from unfolded) and (select max(file_id) from unfolded)
      and u.file_id in (select file_id from unfolded)
      and ($1::date is null or u.occurred_at >= ($1::date)::timestamp at time zone 'UTC')
      and ($2::date is null or u.occurred_at < ($2::date + 1)::timestamp at time zone 'UTC')
)
select exists (select 1 from dirty_cohort_days) or exists (select 1 from unfolded) as pending,
       (least((select day from dirty_day), (select day from new_ux_day)) - 1)::date as friction_from,
       (select day from dirty_day) is not null as ledger_dirty
