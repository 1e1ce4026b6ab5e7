-- funnel: every funnel's steps for one app, overall plus the breakdowns asked for ($2 is a text
-- array of dimension names; the steps are broken down one dimension at a time). Without a date
-- range ($3 from, $4 to, install cohort dates) it reads fct_funnel (every computed cohort); with
-- one it computes the steps of those cohorts' users at read time (funnel_steps, migration 0016;
-- a week of cohorts reads a week of user facts). Default steps the app has no input for
-- (default_funnel_left_out, migration 0065) are left out.
-- Grain: one row per (funnel, network, campaign, country, platform, step_index). Reads:
-- fct_funnel, or int_user_facts and int_user_funnel_steps through funnel_steps;
-- default_funnel_left_out.
with steps as (
    select funnel, network, campaign, country, platform, step_index, step, users,
           conversion_from_previous, conversion_from_first, median_seconds_to_convert
    from fct_funnel
    where app_id = $1 and $3::date is null and $4::date is null
    union all
    select funnel, network, campaign, country, platform, step_index, step, users,
           conversion_from_previous, conversion_from_first, median_seconds_to_convert
    from funnel_steps($1, $3::date, $4::date)
    where ($3::date is not null or $4::date is not null)
      and not (funnel = 'default' and exists (
          select 1 from default_funnel_left_out l where l.app_id = $1 and l.step_index = funnel_steps.step_index))
)
select funnel, network, campaign, country, platform, step_index, step, users,
       conversion_from_previous, conversion_from_first, median_seconds_to_convert
from steps
where (network = 'all' and campaign = 'all' and country = 'all' and platform = 'all')
   or (network <> 'all' and 'network' = any($2::text[]))
   or (campaign <> 'all' and 'campaign' = any($2::text[]))
   or (country <> 'all' and 'country' = any($2::text[]))
   or (platform <> 'all' and 'platform' = any($2::text[]))
order by funnel = 'default' desc, funnel, network <> 'all', network, campaign <> 'all', campaign,
         country <> 'all', country, platform <> 'all', platform, step_index;
