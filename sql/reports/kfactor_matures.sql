-- kfactor_matures: the data day from which one app's k-factor has its first mature cohort: the
-- first install cohort's day W - 1 (W = [kfactor] window_days), with W and that cohort's date.
-- Grain: one row (none without installs). Reads: int_cohort_rollup, compute_settings.
select (min(r.cohort_date) + (s.kfactor_window_days - 1))::text as matures_on,
       min(r.cohort_date)::text as first_cohort, s.kfactor_window_days as window_days
from int_cohort_rollup r
cross join compute_settings s
where r.app_id = $1 and s.app_id = ''
group by s.kfactor_window_days;
