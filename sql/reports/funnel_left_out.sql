-- funnel_left_out: the default funnel's steps left out for one app ($1) because their input was
-- never loaded, with the reason, for the report's notes.
-- Grain: one row per step left out. Reads: default_funnel_left_out.
select step, reason
from default_funnel_left_out
where app_id = $1
order by step_index;
