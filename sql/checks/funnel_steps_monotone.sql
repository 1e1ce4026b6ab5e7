-- funnel_steps_monotone: funnel rows with more users than the previous step, or rates outside
-- 0..1. Grain: one row per offending (app_id, funnel, breakdown, step_index). Reads: fct_funnel.
select app_id, funnel, network, campaign, country, platform, step_index
from fct_funnel
where conversion_from_previous > 1 or conversion_from_first > 1
   or conversion_from_previous < 0 or conversion_from_first < 0 or users < 0
   or median_seconds_to_convert < 0
