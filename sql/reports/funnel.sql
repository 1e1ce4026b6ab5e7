-- funnel: every funnel's steps for one app, overall plus the breakdowns asked for ($2 is a text
-- array of dimension names; fct_funnel breaks down one dimension at a time).
-- Grain: one row per (funnel, network, campaign, country, platform, step_index). Reads: fct_funnel.
select funnel, network, campaign, country, platform, step_index, step, users,
       conversion_from_previous, conversion_from_first, median_seconds_to_convert
from fct_funnel
where app_id = $1
  and ((network = 'all' and campaign = 'all' and country = 'all' and platform = 'all')
       or (network <> 'all' and 'network' = any($2::text[]))
       or (campaign <> 'all' and 'campaign' = any($2::text[]))
       or (country <> 'all' and 'country' = any($2::text[]))
       or (platform <> 'all' and 'platform' = any($2::text[])))
order by funnel = 'default' desc, funnel, network <> 'all', network, campaign <> 'all', campaign,
         country <> 'all', country, platform <> 'all', platform, step_index;
