-- int_friction_outcomes: computes from the raw rows the outcome of every user in int_friction_reached
-- (a rebuild: the friction reset emptied the tables and int_friction_reached refilled them from every raw row).
-- Outcome: onboarding completed (an `onboarding_complete` step at any time), the bounds of day 1
-- after the first install (cohort_day_start in the reporting time zone $1 under the day rule $2),
-- and whether an open fell within them. int_friction_outcomes.fold.sql does the same for the few users of an
-- incremental run, by probes instead of these whole-table joins.
-- Each outcome is counted in its class at once (counted_class, by its app's last data day in
-- int_friction_apps), which int_friction_screen_counts.sql counts the reached screens by: updated
-- afterwards, the 340k outcomes of a 300k-user history took 1.5-2 s more.
-- Grain: one row per (app_id, user_id) inserted. Reads: int_friction_reached, raw_steps,
-- raw_installs, raw_opens (from the earliest day 1 on), int_friction_apps.
with users as materialized (
    select distinct r.app_id, r.user_id
    from int_friction_reached r
), completed as (
    select distinct st.app_id, st.user_id
    from raw_steps st
    join users u on u.app_id = st.app_id and u.user_id = st.user_id
    where st.step = 'onboarding_complete'
), first_installs as materialized (
    select f.app_id, f.user_id,
           cohort_day_start(f.installed_at, 1, $1::text, $2::text) as day1_from,
           cohort_day_start(f.installed_at, 2, $1::text, $2::text) as day1_to
    from (
        select distinct on (i.app_id, i.user_id) i.app_id, i.user_id, i.installed_at
        from raw_installs i
        join users u on u.app_id = i.app_id and u.user_id = i.user_id
        order by i.app_id, i.user_id, i.installed_at
    ) f
), returned as (
    select distinct f.app_id, f.user_id
    from first_installs f
    join raw_opens o on o.app_id = f.app_id and o.user_id = f.user_id
    where o.opened_at >= f.day1_from
      and o.opened_at < f.day1_to
      and o.opened_at >= (select min(day1_from) from first_installs)
), apps as materialized (
    select app_id, data_through from int_friction_apps
)
insert into int_friction_outcomes as o (app_id, user_id, completed, day1_from, day1_to, returned_d1, counted_class)
select u.app_id, u.user_id, c.user_id is not null, f.day1_from, f.day1_to, r.user_id is not null,
       friction_outcome_class(c.user_id is not null, f.day1_to, r.user_id is not null, a.data_through)
from users u
left join completed c on c.app_id = u.app_id and c.user_id = u.user_id
left join first_installs f on f.app_id = u.app_id and f.user_id = u.user_id
left join returned r on r.app_id = u.app_id and r.user_id = u.user_id
left join apps a on a.app_id = u.app_id
on conflict (app_id, user_id) do update
set completed = excluded.completed, day1_from = excluded.day1_from, day1_to = excluded.day1_to,
    returned_d1 = excluded.returned_d1, counted_class = excluded.counted_class
