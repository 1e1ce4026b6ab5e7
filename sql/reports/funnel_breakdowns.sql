-- funnel_breakdowns: the configured funnels broken down by a property, for one app ($1): each
-- value's steps, values by their step-1 users (largest first), users without the property
-- (breakdown null) last. Without a date range ($2 from, $3 to, install cohort dates) it reads
-- fct_funnel_breakdown; with one it computes them for those cohorts' users at read time.
-- Grain: one row per (funnel, breakdown, step_index). Reads: fct_funnel_breakdown, or
-- int_user_funnel_breakdown_steps and int_user_facts through funnel_breakdown_steps.
with steps as (
    select funnel, property, breakdown, step_index, step, users, conversion_from_previous,
           conversion_from_first, median_seconds_to_convert
    from fct_funnel_breakdown
    where app_id = $1 and $2::date is null and $3::date is null
    union all
    select funnel, property, breakdown, step_index, step, users, conversion_from_previous,
           conversion_from_first, median_seconds_to_convert
    from funnel_breakdown_steps($1, $2::date, $3::date)
    where $2::date is not null or $3::date is not null
), entered as (
    select funnel, breakdown, users as first_users from steps where step_index = 0
)
select s.funnel, 'all' as network, 'all' as campaign, 'all' as country, 'all' as platform, s.property,
       s.breakdown, s.step_index, s.step, s.users, s.conversion_from_previous, s.conversion_from_first,
       s.median_seconds_to_convert
from steps s
join entered e on e.funnel = s.funnel and e.breakdown is not distinct from s.breakdown
order by s.funnel, s.breakdown is null, e.first_users desc, s.breakdown, s.step_index;
