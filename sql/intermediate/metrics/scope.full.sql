-- scope.full: every cohort date and spend date in [$1, $2] (NULL = unbounded), for a full
-- rebuild. The dirty ledger rows of that range are drained too: they are covered.
-- Grain: one row per (app_id, cohort_date). Reads: raw_installs, raw_ad_spend, dirty_cohort_days,
-- compute_settings. Parameters: $1 from date, $2 to date.
with settings as (
    select time_zone from compute_settings where app_id = ''
), drained as (
    delete from dirty_cohort_days
    where ($1::date is null or cohort_date >= $1::date - 1)
      and ($2::date is null or cohort_date <= $2::date + 1)
), dates as (
    select distinct i.app_id, (timezone(s.time_zone, i.installed_at))::date as cohort_date
    from raw_installs i cross join settings s
    union
    select distinct a.app_id, a.spend_date from raw_ad_spend a
)
insert into compute_scope (app_id, cohort_date)
select app_id, cohort_date
from dates
where ($1::date is null or cohort_date >= $1::date)
  and ($2::date is null or cohort_date <= $2::date)
on conflict do nothing
