-- cpi_totals: spend, installs and CPI of one app per network summed over spend dates from $2 to
-- $3 (null: open-ended). CPI is undefined (null) without spend or paid installs, never 0. Spend
-- is numeric (migration 0055): the sum is exact whatever order the rows are read in.
-- Grain: one row per network ('all' = every network). Reads: fct_cpi.
with scoped as (
    select network, sum(spend) as spend, sum(impressions)::bigint as impressions, sum(clicks)::bigint as clicks,
           sum(installs)::bigint as installs, sum(paid_installs)::bigint as paid_installs
    from fct_cpi
    where app_id = $1 and campaign = 'all' and country = 'all'
      and ($2::date is null or date >= $2::date)
      and ($3::date is null or date <= $3::date)
    group by network
)
select network, spend, impressions, clicks, installs, paid_installs,
       case when spend > 0 and paid_installs > 0 then spend / paid_installs end as cpi,
       case when spend > 0 and installs > 0 then spend / installs end as blended_cpi,
       case when impressions > 0 then clicks::double precision / impressions end as ctr,
       case when impressions > 0 then installs * 1000.0 / impressions end as ipm
from scoped
order by network = 'all', spend desc, network;
