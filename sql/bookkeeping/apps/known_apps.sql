-- known_apps: every app the database holds, for `funnel apps list`: the apps with installs (their
-- count and first and last install day in UTC), with ad spend rows, or with computed metrics.
-- Grain: one row per app_id, in order. Reads: raw_installs, raw_ad_spend, compute_state.
with installs as (
    select app_id, count(*) as installs, (min(installed_at) at time zone 'UTC')::date::text as first_install,
           (max(installed_at) at time zone 'UTC')::date::text as last_install
    from raw_installs
    group by app_id
), spend as (
    select app_id, count(*) as spend_rows
    from raw_ad_spend
    group by app_id
), apps as (
    select app_id from installs
    union
    select app_id from spend
    union
    select app_id from compute_state
)
select a.app_id,
       coalesce(i.installs, 0) as installs,
       i.first_install,
       i.last_install,
       coalesce(s.spend_rows, 0) as spend_rows,
       c.data_through_date::text as data_through_date,
       to_char(c.computed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as computed_at
from apps a
left join installs i using (app_id)
left join spend s using (app_id)
left join compute_state c using (app_id)
order by a.app_id
