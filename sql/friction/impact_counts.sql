-- impact_counts: for each (app, screen, friction type) any user hit, the users who reached the
-- screen split by hit / not hit, and how many of each dropped off (no onboarding completion) and
-- did not return on day 1 (among users whose day 1 is known). Apps: $1 (text[]). "Not hit" is the
-- screen's total minus the hit users, so each table is read once.
-- Day 1 is known for users whose first install is at least a day before the app's last open.
-- Grain: one row per (app_id, screen, friction_type).
-- Reads: fct_friction_episodes, int_friction_reached, int_friction_screens, int_friction_outcomes,
-- int_friction_apps.
with hits as (
    select distinct app_id, screen, friction_type, user_id
    from fct_friction_episodes
    where app_id = any ($1::text[])
),
-- Inlined where they are used (not materialized), so each join can use the tables' keys.
reached as not materialized (
    select r.app_id, r.screen, r.user_id
    from int_friction_reached r
    join int_friction_screens s on s.app_id = r.app_id and s.screen = r.screen
    where r.app_id = any ($1::text[])
),
outcomes as not materialized (
    select o.app_id, o.user_id, not o.completed as dropped,
           case when o.install_date is null or a.last_open_date is null or o.install_date + 1 > a.last_open_date
                then null
                else not o.returned_d1 end as d1_dropped
    from int_friction_outcomes o
    left join int_friction_apps a on a.app_id = o.app_id
    where o.app_id = any ($1::text[])
),
screen_totals as (
    select r.app_id, r.screen,
           count(*) as users,
           count(*) filter (where o.dropped) as dropped,
           count(*) filter (where o.d1_dropped is not null) as d1_users,
           count(*) filter (where o.d1_dropped) as d1_dropped
    from reached r
    join outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
    group by r.app_id, r.screen
),
hit_totals as (
    select h.app_id, h.screen, h.friction_type,
           count(*) as users,
           count(*) filter (where o.dropped) as dropped,
           count(*) filter (where o.d1_dropped is not null) as d1_users,
           count(*) filter (where o.d1_dropped) as d1_dropped
    from hits h
    join reached r on r.app_id = h.app_id and r.screen = h.screen and r.user_id = h.user_id
    join outcomes o on o.app_id = h.app_id and o.user_id = h.user_id
    group by h.app_id, h.screen, h.friction_type
)
select h.app_id, h.screen, h.friction_type,
       h.users::int as users_hit,
       h.dropped::int as dropped_hit,
       (s.users - h.users)::int as users_not_hit,
       (s.dropped - h.dropped)::int as dropped_not_hit,
       h.d1_users::int as d1_users_hit,
       h.d1_dropped::int as d1_dropped_hit,
       (s.d1_users - h.d1_users)::int as d1_users_not_hit,
       (s.d1_dropped - h.d1_dropped)::int as d1_dropped_not_hit
from hit_totals h
join screen_totals s on s.app_id = h.app_id and s.screen = h.screen
order by h.app_id, h.screen, h.friction_type;
