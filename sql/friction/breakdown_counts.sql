-- breakdown_counts: the users who hit one flagged (app $1, screen $2, friction type $3), by the
-- input mode, orientation and platform of their first episode there, with how many dropped off.
-- Grain: one row per (dimension, value). Reads: fct_friction_episodes, int_friction_outcomes.
with first_episodes as (
    select distinct on (e.user_id) e.user_id, e.input_mode, e.orientation, e.platform
    from fct_friction_episodes e
    where e.app_id = $1 and e.screen = $2 and e.friction_type = $3
    order by e.user_id, e.occurred_at
),
hit_users as (
    select f.*, not o.completed as dropped
    from first_episodes f
    join int_friction_outcomes o on o.app_id = $1 and o.user_id = f.user_id
)
select dimension, value, count(*)::int as users_hit, count(*) filter (where dropped)::int as dropped_hit
from hit_users
cross join lateral (values ('input_mode', coalesce(input_mode, 'unknown')),
                           ('orientation', coalesce(orientation, 'unknown')),
                           ('platform', coalesce(platform, 'unknown'))) as d (dimension, value)
group by dimension, value
order by dimension, value;
