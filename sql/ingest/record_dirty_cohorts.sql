-- record_dirty_cohorts: adds the (app, cohort day) pairs the file's new rows touched to the
-- ledger that incremental compute drains.
-- Grain: one row per (app_id, cohort_date). Inputs: stage_dirty (filled by the merge_* files).
-- One sorted insert at the end of the file's transaction, so concurrent loaders take the ledger's
-- row locks in the same order and cannot deadlock on them.
insert into dirty_cohort_days (app_id, cohort_date)
select distinct app_id, cohort_date
from stage_dirty
where cohort_date is not null
order by app_id, cohort_date
on conflict (app_id, cohort_date) do nothing;
