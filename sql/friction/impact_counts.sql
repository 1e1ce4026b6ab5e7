-- impact_counts: for each (app, screen, friction type) any user hit, the users who reached the
-- screen split by hit / not hit, and how many of each dropped off (no onboarding completion) and
-- did not return on day 1 (among users whose day 1 is known). Apps: $1 (text[]).
-- Grain: one row per (app_id, screen, friction_type).
-- Reads: fct_friction_episodes, friction_reached, friction_user_outcomes.
with hits as (
    select distinct app_id, screen, friction_type, user_id
    from fct_friction_episodes
    where app_id = any ($1::text[])
),
pairs as (
    select distinct app_id, screen, friction_type from hits
)
select p.app_id, p.screen, p.friction_type,
       count(*) filter (where h.user_id is not null)::int as users_hit,
       count(*) filter (where h.user_id is not null and o.dropped)::int as dropped_hit,
       count(*) filter (where h.user_id is null)::int as users_not_hit,
       count(*) filter (where h.user_id is null and o.dropped)::int as dropped_not_hit,
       count(*) filter (where h.user_id is not null and o.d1_dropped is not null)::int as d1_users_hit,
       count(*) filter (where h.user_id is not null and o.d1_dropped)::int as d1_dropped_hit,
       count(*) filter (where h.user_id is null and o.d1_dropped is not null)::int as d1_users_not_hit,
       count(*) filter (where h.user_id is null and o.d1_dropped)::int as d1_dropped_not_hit
from pairs p
join friction_reached r on r.app_id = p.app_id and r.screen = p.screen
join friction_user_outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
left join hits h on h.app_id = p.app_id and h.screen = p.screen and h.friction_type = p.friction_type
                and h.user_id = r.user_id
group by p.app_id, p.screen, p.friction_type
order by p.app_id, p.screen, p.friction_type;
