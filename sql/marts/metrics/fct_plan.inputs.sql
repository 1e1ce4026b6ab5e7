-- fct_plan.inputs: what the budget plan (BudgetPlanner, docs/metrics.md "Budget plan") needs per
-- paid network of one app ($1): its response curve (fct_spend_response, campaign and country
-- 'all': form, a, b with its interval, the saturating curve, today's spend as the mean of the
-- last 14 days with spend (from fct_cpi for a network without a curve), the largest day seen and the average CPI) and the LTV at the horizon
-- day $2 with its interval (fct_ltv: the observed value when the curve reaches it, else the
-- projection).
-- Grain: one row per (app_id, network) of fct_spend_response's network rows, by network.
select r.network, r.status, r.curve_form, r.scale_a, r.exponent_b, r.exponent_b_low, r.exponent_b_high,
       r.saturating_capacity, r.saturating_half_spend, coalesce(r.current_spend::float8, t.spend), r.max_spend::float8,
       coalesce(r.average_cpi, n.cpi)::float8, l.ltv::float8, coalesce(l.ltv_low, l.ltv)::float8,
       coalesce(l.ltv_high, l.ltv)::float8, n.spend::float8
from fct_spend_response r
left join fct_networks n on n.app_id = r.app_id and n.network = r.network
left join lateral (
    select avg(c.spend)::float8 as spend from (
        select c.spend from fct_cpi c
        where c.app_id = r.app_id and c.network = r.network and c.campaign = 'all' and c.country = 'all' and c.spend > 0
        order by c.date desc limit 14
    ) c
) t on true
left join lateral (
    select l.ltv, l.ltv_low, l.ltv_high from fct_ltv l
    where l.app_id = r.app_id and l.network = r.network and l.day = $2::integer
    order by l.projected limit 1
) l on true
where r.app_id = $1 and r.campaign = 'all' and r.country = 'all'
order by r.network
