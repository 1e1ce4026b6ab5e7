-- fct_cpi: spend, impressions, clicks and installs by day, network, campaign and country, with
-- per-(day, network) and per-day totals (campaign/country or network = 'all'). Cost goes to the
-- install date. installs counts every install in the row's scope; paid_installs the non-viral
-- installs of paid networks. cpi = spend / paid_installs, blended_cpi = spend / installs,
-- ctr = clicks / impressions, ipm = paid installs per 1,000 impressions: each NULL when its
-- denominator or the spend is zero, never infinite or 0.
-- Grain: one row per (app_id, date, network, campaign, country). Reads: int_spend_day_rollup,
-- int_cohort_rollup.
delete from fct_cpi;

with installs as (
    select app_id, cohort_date as date, network, campaign, country,
           sum(installs) as installs, sum(paid_installs) as paid_installs
    from int_cohort_rollup
    group by app_id, cohort_date, network, campaign, country
), joined as (
    select coalesce(s.app_id, i.app_id) as app_id,
           coalesce(s.spend_date, i.date) as date,
           coalesce(s.network, i.network) as network,
           coalesce(s.campaign, i.campaign) as campaign,
           coalesce(s.country, i.country) as country,
           coalesce(s.spend_usd, 0) as spend, coalesce(s.impressions, 0) as impressions,
           coalesce(s.clicks, 0) as clicks, coalesce(i.installs, 0) as installs,
           coalesce(i.paid_installs, 0) as paid_installs
    from int_spend_day_rollup s
    full join installs i
      on i.app_id = s.app_id and i.date = s.spend_date and i.network = s.network
     and i.campaign = s.campaign and i.country = s.country
), totals as (
    select app_id, date, coalesce(network, 'all') as network, coalesce(campaign, 'all') as campaign,
           coalesce(country, 'all') as country, sum(spend) as spend, sum(impressions) as impressions,
           sum(clicks) as clicks, sum(installs) as installs, sum(paid_installs) as paid_installs
    from joined
    group by grouping sets ((app_id, date, network, campaign, country), (app_id, date, network), (app_id, date))
)
insert into fct_cpi (app_id, date, network, campaign, country, spend, impressions, clicks, installs,
                     paid_installs, cpi, blended_cpi, ctr, ipm)
select app_id, date, network, campaign, country, spend, impressions, clicks, installs, paid_installs,
       case when spend > 0 and paid_installs > 0 then spend / paid_installs end,
       case when spend > 0 and installs > 0 then spend / installs end,
       case when impressions > 0 then clicks::double precision / impressions end,
       case when impressions > 0 then paid_installs * 1000.0 / impressions end
from totals;
