-- user_outcomes: for each user who reached an onboarding screen, whether they dropped off (no
-- `onboarding_complete` step) and whether they did not return on day 1 (no open on the UTC
-- calendar day after their first install). d1_dropped is null when unknown: no install row, or
-- day 1 is after the app's last day of opens (immature).
-- Grain: one row per (app_id, user_id). Reads: friction_reached, raw_steps, raw_installs, raw_opens.
insert into friction_user_outcomes (app_id, user_id, dropped, d1_dropped)
with users as (
    select distinct app_id, user_id from friction_reached
),
completed as (
    select distinct st.app_id, st.user_id
    from raw_steps st
    join users u on u.app_id = st.app_id and u.user_id = st.user_id
    where st.step = 'onboarding_complete'
),
first_installs as (
    select distinct on (i.app_id, i.user_id) i.app_id, i.user_id,
           (i.installed_at at time zone 'UTC')::date as install_date
    from raw_installs i
    join users u on u.app_id = i.app_id and u.user_id = i.user_id
    order by i.app_id, i.user_id, i.installed_at
),
last_open_dates as (
    select o.app_id, max((o.opened_at at time zone 'UTC')::date) as last_date
    from raw_opens o
    where o.app_id in (select distinct app_id from users)
    group by o.app_id
),
returned as (
    select distinct f.app_id, f.user_id
    from first_installs f
    join raw_opens o on o.app_id = f.app_id and o.user_id = f.user_id
    where o.opened_at >= (f.install_date + 1)::timestamp at time zone 'UTC'
      and o.opened_at < (f.install_date + 2)::timestamp at time zone 'UTC'
)
select u.app_id, u.user_id,
       c.user_id is null as dropped,
       case when f.user_id is null or l.last_date is null or f.install_date + 1 > l.last_date then null
            else r.user_id is null end as d1_dropped
from users u
left join completed c on c.app_id = u.app_id and c.user_id = u.user_id
left join first_installs f on f.app_id = u.app_id and f.user_id = u.user_id
left join last_open_dates l on l.app_id = u.app_id
left join returned r on r.app_id = u.app_id and r.user_id = u.user_id;
