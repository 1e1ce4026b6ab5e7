-- scope.dirty: drains the dirty ledger into the run's scope. Each dirty UTC date is widened by
-- one day either side, because the reporting time zone can move an install to the neighbouring
-- date. Only pairs inside [$1, $2] (NULL = unbounded) are drained; the delete commits with the
-- rebuild, so a failed run leaves the ledger as it was.
-- Grain: one row per (app_id, cohort_date). Reads: dirty_cohort_days. Parameters: $1 from date,
-- $2 to date.
with drained as (
    delete from dirty_cohort_days
    where ($1::date is null or cohort_date >= $1::date - 1)
      and ($2::date is null or cohort_date <= $2::date + 1)
    returning app_id, cohort_date
)
insert into compute_scope (app_id, cohort_date)
select distinct d.app_id, d.cohort_date + shift
from drained d
cross join (values (-1), (0), (1)) as shifts (shift)
where ($1::date is null or d.cohort_date + shift >= $1::date)
  and ($2::date is null or d.cohort_date + shift <= $2::date)
on conflict do nothing
