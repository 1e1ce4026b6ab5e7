-- fct_campaigns.pooling_inputs: what the pooling of a campaign's LTV toward its network
-- (CampaignPooling, docs/metrics.md "Money by campaign") reads: per campaign, and per campaign and
-- country, each install date's cohort mature for day $1 with its installs and its revenue on days
-- 0..$1 (the day rollup's revenue, folded to country '' where the date's spend of the campaign is
-- stated without a country, as fct_cpi and fct_campaigns fold it).
-- Grain: one row per (app_id, network, campaign, country, cohort date); country 'all' the
-- campaign; ordered by app, network, campaign, country. Reads: fct_cpi, int_cohort_day_rollup,
-- compute_state, compute_settings.
with settings as (
    select * from compute_settings where app_id = ''
), cells as materialized (
    select c.app_id, c.date, c.network, c.campaign, c.country, c.installs
    from fct_cpi c
    join compute_state cs on cs.app_id = c.app_id
    cross join settings s
    where c.network <> 'all' and c.campaign <> 'all' and c.country <> 'all' and c.installs > 0
      and c.date + $1::integer + case when s.day_rule = 'hours24' then 1 else 0 end <= cs.data_through_date
), blank as (
    select distinct app_id, date, network, campaign from cells where country = ''
), revenue as (
    select r.app_id, r.cohort_date as date, r.network, r.campaign,
           case when b.app_id is null then r.country else '' end as country, sum(r.revenue_usd) as revenue_usd
    from int_cohort_day_rollup r
    join (select distinct app_id, date from cells) d on d.app_id = r.app_id and d.date = r.cohort_date
    left join blank b on b.app_id = r.app_id and b.date = r.cohort_date and b.network = r.network
                     and b.campaign = r.campaign
    where r.day_n <= $1::integer and r.revenue_usd <> 0
    group by 1, 2, 3, 4, 5
), joined as (
    select c.app_id, c.date, c.network, c.campaign, c.country, c.installs, coalesce(r.revenue_usd, 0) as revenue_usd
    from cells c
    left join revenue r on r.app_id = c.app_id and r.date = c.date and r.network = c.network
                       and r.campaign = c.campaign and r.country = c.country
)
select app_id, network, campaign, coalesce(country, 'all'), date::text, sum(installs)::bigint,
       sum(revenue_usd)::float8
from joined
group by grouping sets ((app_id, network, campaign, country, date), (app_id, network, campaign, date))
order by 1, 2, 3, 4, 5
