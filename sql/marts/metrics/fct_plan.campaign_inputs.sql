-- fct_plan.campaign_inputs: what the budget plan per campaign (`funnel plan --by campaign`,
-- docs/metrics.md "Budget plan") needs per campaign with spend of one app ($1), named
-- 'network/campaign': its response curve (fct_spend_response, country 'all': form, a, b with its
-- interval, the saturating curve, today's spend as the mean of its last 14 days with spend (from
-- fct_cpi for a campaign without a curve), the largest day seen and the average CPI) and its LTV at
-- the horizon day $2 with its interval: its network's (fct_ltv: observed when the curve reaches
-- the day, else the projection) scaled as fct_campaigns scales LTV_D180 (the campaign's pooled
-- LTV_D180 and interval ends over the network's).
-- Grain: one row per (app_id, network, campaign) of fct_campaigns with spend, by network and campaign.
with campaigns as (
    select k.*, n.ltv_projected_d180 as network_ltv, n.ltv_d180_low as network_low, n.ltv_d180_high as network_high
    from fct_campaigns k
    join fct_networks n on n.app_id = k.app_id and n.network = k.network
    where k.app_id = $1 and k.campaign <> 'all' and k.country = 'all' and k.spend > 0
), days as (
    select c.network, c.campaign, c.date, sum(c.spend) as spend
    from fct_cpi c
    where c.app_id = $1 and c.network <> 'all' and c.campaign <> 'all' and c.country <> 'all'
    group by 1, 2, 3
)
select k.network || '/' || k.campaign, coalesce(r.status, 'no curve for the campaign'), r.curve_form, r.scale_a,
       r.exponent_b, r.exponent_b_low, r.exponent_b_high, r.saturating_capacity, r.saturating_half_spend,
       coalesce(r.current_spend::float8, t.spend), coalesce(r.max_spend::float8, t.largest),
       coalesce(r.average_cpi, k.cpi)::float8,
       (l.ltv * coalesce(k.ltv_projected_d180 / nullif(k.network_ltv, 0), 1))::float8,
       (coalesce(l.ltv_low, l.ltv) * coalesce(k.ltv_d180_low / nullif(k.network_low, 0), 1))::float8,
       (coalesce(l.ltv_high, l.ltv) * coalesce(k.ltv_d180_high / nullif(k.network_high, 0), 1))::float8,
       k.spend::float8
from campaigns k
left join fct_spend_response r on r.app_id = k.app_id and r.network = k.network and r.campaign = k.campaign
                               and r.country = 'all'
left join lateral (
    select avg(d.spend)::float8 as spend, max(d.largest)::float8 as largest from (
        select d.spend, max(d.spend) over () as largest from days d
        where d.network = k.network and d.campaign = k.campaign and d.spend > 0
        order by d.date desc limit 14
    ) d
) t on true
left join lateral (
    select l.ltv, l.ltv_low, l.ltv_high from fct_ltv l
    where l.app_id = k.app_id and l.network = k.network and l.day = $2::integer
    order by l.projected limit 1
) l on true
order by k.network, k.campaign
