-- int_friction_outcomes.fold: computes from the raw rows the outcome of each user whose outcome is unknown or
-- may have moved in an incremental run: users the window brought into int_friction_reached
-- (friction_new_reached), and known users whose first install the window moved earlier (or
-- brought at all). Outcome: onboarding completed (an `onboarding_complete` step at any time), the
-- bounds of day 1 after the first install (cohort_day_start in the reporting time zone $1 under
-- the day rule $2), and whether an open fell within them. A rebuild uses int_friction_outcomes.sql.
-- A day brings a few thousand such users against hundreds of thousands of outcomes: they are
-- joined to the outcomes and the steps by key, and their installs probed by (app_id, user_id,
-- installed_at). (Lateral probes with offset 0 and correlated "exists" into the distributed
-- outcomes and steps, which Citus refuses against the temporary tables, kept the planner from
-- hashing whole tables before: 1.1-1.4 -> 0.7 s on a bench day.) Opens have no index by user: they are read from the earliest day 1
-- concerned to the end of the latest (partitions outside it are not read), and only for users
-- whose day 1 can have an open at all (it starts before the end of the app's last day with an
-- open, which int_friction_apps.sql has already moved on with the window's opens).
-- Grain: one row per (app_id, user_id) upserted. Reads: friction_window, friction_new_reached,
-- int_friction_outcomes, int_friction_apps, raw_steps, raw_installs, raw_opens. Window rows are
-- found between the lowest and highest file_id of the window (index on file_id).
with window_installs as (
    select i.app_id, i.user_id, cohort_day_start(min(i.installed_at), 1, $1::text, $2::text) as day1_from
    from raw_installs i
    where i.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and i.file_id in (select file_id from friction_window)
    group by i.app_id, i.user_id
), users as materialized (
    -- every user of int_friction_reached has an outcome, so a user without one is new to
    -- int_friction_reached: one of the rows int_friction_reached.sql has just added
    select distinct n.app_id, n.user_id
    from friction_new_reached n
    left join int_friction_outcomes o on o.app_id = n.app_id and o.user_id = n.user_id
    where o.user_id is null
    union
    select w.app_id, w.user_id
    from window_installs w
    join int_friction_outcomes o on o.app_id = w.app_id and o.user_id = w.user_id
    where o.day1_from is null or w.day1_from < o.day1_from
), completers as materialized (
    select distinct st.app_id, st.user_id
    from users u
    join raw_steps st on st.app_id = u.app_id and st.user_id = u.user_id
    where st.step = 'onboarding_complete'
), facts as materialized (
    select u.app_id, u.user_id, c.user_id is not null as completed,
           cohort_day_start(i.installed_at, 1, $1::text, $2::text) as day1_from,
           cohort_day_start(i.installed_at, 2, $1::text, $2::text) as day1_to
    from users u
    cross join lateral (
        select min(i.installed_at) as installed_at from raw_installs i
        where i.app_id = u.app_id and i.user_id = u.user_id
    ) i
    left join completers c on c.app_id = u.app_id and c.user_id = u.user_id
), may_return as materialized (
    select f.app_id, f.user_id, f.day1_from, f.day1_to
    from facts f
    join int_friction_apps a on a.app_id = f.app_id
    where f.day1_from < a.data_through
), returned as (
    select distinct m.app_id, m.user_id
    from may_return m
    join raw_opens o on o.app_id = m.app_id and o.user_id = m.user_id
    where o.opened_at >= m.day1_from
      and o.opened_at < m.day1_to
      and o.opened_at >= (select min(day1_from) from may_return)
      and o.opened_at < (select max(day1_to) from may_return)
)
insert into int_friction_outcomes as o (app_id, user_id, completed, day1_from, day1_to, returned_d1)
select f.app_id, f.user_id, f.completed, f.day1_from, f.day1_to, r.user_id is not null
from facts f
left join returned r on r.app_id = f.app_id and r.user_id = f.user_id
on conflict (app_id, user_id) do update
set completed = excluded.completed, day1_from = excluded.day1_from, day1_to = excluded.day1_to,
    returned_d1 = excluded.returned_d1
