-- cpi: spend, installs and CPI of one app by day for spend dates from $2 to $3 (null: open-ended):
-- per network, and per campaign / country only when $4 / $5 ask for that breakdown.
-- Grain: one row per (date, network, campaign, country). Reads: fct_cpi.
select date::text as date, network, campaign, country, spend, impressions, clicks, installs,
       paid_installs, cpi, blended_cpi, ctr, ipm
from fct_cpi
where app_id = $1
  and ($2::date is null or date >= $2::date)
  and ($3::date is null or date <= $3::date)
  and (campaign = 'all' or $4::boolean)
  and (country = 'all' or $5::boolean)
order by date, network = 'all', network, campaign <> 'all', campaign, country <> 'all', country;
