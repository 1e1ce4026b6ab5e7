-- friction: onboarding friction of one app per screen and friction type, flagged ones first by rank
-- (users lost). Only run when friction_available.sql says the mart exists.
-- Grain: one row per (screen, friction_type). Reads: fct_friction_impact.
select screen, friction_type, users_hit, users_not_hit, dropoff_hit, dropoff_not_hit,
       relative_risk, p_value, q_value, users_lost, flagged, rank
from fct_friction_impact
where app_id = $1
order by flagged desc, rank nulls last, users_lost desc nulls last, screen, friction_type;
