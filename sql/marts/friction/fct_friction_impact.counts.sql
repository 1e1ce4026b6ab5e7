-- fct_friction_impact.counts: for each (app, screen, friction type) any user hit, the users who reached the
-- screen split by hit / not hit, and how many of each dropped off (no onboarding completion) and
-- did not return on day 1 (among users whose day 1 is known). Apps: $1 (text[]). "Not hit" is the
-- screen's total minus the hit users.
-- The screen's totals are the kept counts by outcome class (migration 0045, kept by
-- int_friction_screen_counts.fold.sql); the hit users are counted under the class their screens are counted
-- under (counted_class), so both sides agree. friction_outcome_class says what a class means.
-- The hit users are int_friction_hits (migration 0053, kept by int_friction_hits.fold.sql), one row per user and
-- (screen, friction type) with the class it is counted under; users without an outcome (no class)
-- are left out. A hit user always reached the screen: an episode comes from `ux` events of loaded
-- files, which int_friction_reached.sql takes into int_friction_reached (with the screen into
-- int_friction_screens) in the same transaction before episodes are detected; so the hits are not
-- looked up there again.
-- Grain: one row per (app_id, screen, friction_type) hit by a user. Reads: int_friction_screen_counts,
-- int_friction_hits.
with screen_totals as (
    select c.app_id, c.screen,
           sum(c.users) as users,
           coalesce(sum(c.users) filter (where c.class < 3), 0) as dropped,
           coalesce(sum(c.users) filter (where c.class % 3 <> 0), 0) as d1_users,
           coalesce(sum(c.users) filter (where c.class % 3 = 1), 0) as d1_dropped
    from int_friction_screen_counts c
    join int_friction_screens s on s.app_id = c.app_id and s.screen = c.screen
    where c.app_id = any ($1::text[])
    group by c.app_id, c.screen
),
hit_totals as (
    select h.app_id, h.screen, h.friction_type,
           count(*) as users,
           count(*) filter (where h.counted_class < 3) as dropped,
           count(*) filter (where h.counted_class % 3 <> 0) as d1_users,
           count(*) filter (where h.counted_class % 3 = 1) as d1_dropped
    from int_friction_hits h
    where h.app_id = any ($1::text[]) and h.counted_class is not null
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
