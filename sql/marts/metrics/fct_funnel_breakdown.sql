-- fct_funnel_breakdown: the configured funnels that have a breakdown, per breakdown value, over
-- every computed cohort (funnel_breakdown_steps, migration 0066).
-- Grain: one row per (app_id, funnel, breakdown, step_index). Reads: int_user_funnel_breakdown_steps
-- compute_funnels and compute_funnel_breakdowns through funnel_breakdown_steps.
delete from fct_funnel_breakdown;

insert into fct_funnel_breakdown (app_id, funnel, property, breakdown, step_index, step, users, conversion_from_previous,
                                  conversion_from_first, median_seconds_to_convert)
select app_id, funnel, property, breakdown, step_index, step, users, conversion_from_previous, conversion_from_first,
       median_seconds_to_convert
from funnel_breakdown_steps(null, null, null);
