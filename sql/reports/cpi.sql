-- cpi: spend, installs and CPI of one app by day for spend dates from $2 to $3 (null: open-ended):
-- per network, and per campaign ($4) and / or country ($5) when asked: the detail rows of fct_cpi
-- (the spend's grain: country '' when a campaign's spend is stated without one) summed over the
-- breakdown not asked for, so --by campaign alone gives one row per campaign and day.
-- CPI is undefined (null) without spend or paid installs, never 0.
-- Grain: one row per (date, network, campaign, country). Reads: fct_cpi.
with totals as (
    select date, network, campaign, country, spend, impressions, clicks, installs, paid_installs
    from fct_cpi
    where app_id = $1 and campaign = 'all' and country = 'all'
      and ($2::date is null or date >= $2::date)
      and ($3::date is null or date <= $3::date)
), detail as (
    select date, network, case when $4::boolean then campaign else 'all' end as campaign,
           case when $5::boolean then country else 'all' end as country,
           sum(spend) as spend, sum(impressions)::bigint as impressions, sum(clicks)::bigint as clicks,
           sum(installs)::bigint as installs, sum(paid_installs)::bigint as paid_installs
    from fct_cpi
    where app_id = $1 and network <> 'all' and campaign <> 'all' and country <> 'all'
      and ($4::boolean or $5::boolean)
      and ($2::date is null or date >= $2::date)
      and ($3::date is null or date <= $3::date)
    group by 1, 2, 3, 4
), rows as (
    select * from totals
    union all
    select * from detail
)
select date::text as date, network, campaign, country, spend, impressions, clicks, installs, paid_installs,
       case when spend > 0 and paid_installs > 0 then spend / paid_installs end as cpi,
       case when spend > 0 and installs > 0 then spend / installs end as blended_cpi,
       case when impressions > 0 then clicks::double precision / impressions end as ctr,
       (case when impressions > 0 then paid_installs * 1000.0 / impressions end)::double precision as ipm
from rows
order by date, network = 'all', network, campaign <> 'all', campaign, country <> 'all', country;
