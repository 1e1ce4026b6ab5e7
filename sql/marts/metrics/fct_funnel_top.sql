-- fct_funnel_top: the aggregate top of the funnel, impressions -> clicks -> installs, per network
-- and for 'all', over the whole history: CTR = clicks / impressions, click-to-install =
-- paid installs / clicks, IPM = paid installs per 1,000 impressions (NULL when undefined).
-- Grain: one row per (app_id, network). Reads: int_spend_day_rollup, int_cohort_rollup.
delete from fct_funnel_top;

with spend as (
    select app_id, network, sum(impressions) as impressions, sum(clicks) as clicks
    from int_spend_day_rollup group by app_id, network
), installs as (
    select app_id, network, sum(paid_installs) as installs
    from int_cohort_rollup group by app_id, network
), joined as (
    select coalesce(s.app_id, i.app_id) as app_id, coalesce(s.network, i.network) as network,
           coalesce(s.impressions, 0) as impressions, coalesce(s.clicks, 0) as clicks,
           coalesce(i.installs, 0) as installs
    from spend s full join installs i on i.app_id = s.app_id and i.network = s.network
), totals as (
    select app_id, coalesce(network, 'all') as network, sum(impressions) as impressions,
           sum(clicks) as clicks, sum(installs) as installs
    from joined
    group by grouping sets ((app_id, network), (app_id))
)
insert into fct_funnel_top (app_id, network, impressions, clicks, installs, ctr, click_to_install, ipm)
select app_id, network, impressions, clicks, installs,
       case when impressions > 0 then clicks::double precision / impressions end,
       case when clicks > 0 then installs::double precision / clicks end,
       case when impressions > 0 then installs * 1000.0 / impressions end
from totals;
