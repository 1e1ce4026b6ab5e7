-- retention: the mature cells of the retention triangle of one app for install cohorts from $2 to
-- $3 (either may be null: open-ended), overall and, when $4 is true, per network.
-- Grain: one row per (mode, cohort_date, network, day). Reads: fct_retention.
select mode, cohort_date::text as cohort_date, network, cohort_size, day, retained, rate
from fct_retention
where app_id = $1
  and ($2::date is null or cohort_date >= $2::date)
  and ($3::date is null or cohort_date <= $3::date)
  and (network = 'all' or $4::boolean)
order by mode, network <> 'all', network, cohort_date, day;
