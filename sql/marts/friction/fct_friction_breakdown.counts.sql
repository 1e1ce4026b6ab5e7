-- fct_friction_breakdown.counts: the users who hit one flagged (app $1, screen $2, friction type $3), by the
-- input mode, orientation and platform of their first episode there, with how many dropped off
-- (onboarding not completed, as their outcome is counted: class < 3, see friction_outcome_class).
-- Users without an outcome are left out, as in fct_friction_impact.counts.sql. The hit users are grouped once
-- by all three dimensions, then each group counts for its value of each.
-- Grain: one row per (dimension, value). Reads: int_friction_hits (migration 0053).
with slices as (
    select h.input_mode, h.orientation, h.platform, count(*) as users,
           count(*) filter (where h.counted_class < 3) as dropped
    from int_friction_hits h
    where h.app_id = $1 and h.screen = $2 and h.friction_type = $3 and h.counted_class is not null
    group by h.input_mode, h.orientation, h.platform
)
select d.dimension, d.value, sum(s.users)::int as users_hit, sum(s.dropped)::int as dropped_hit
from slices s
cross join lateral (values ('input_mode', coalesce(s.input_mode, 'unknown')),
                           ('orientation', coalesce(s.orientation, 'unknown')),
                           ('platform', coalesce(s.platform, 'unknown'))) as d (dimension, value)
group by d.dimension, d.value
order by d.dimension, d.value;
