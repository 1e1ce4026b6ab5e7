-- spend_response_segments: the response curves per campaign and per country of one app's paid
-- networks that have at least two campaigns (or countries) with spend; 'not enough data' where a
-- segment has too little history for a curve (docs/metrics.md, "Spend response").
-- Grain: one row per (network, campaign, country), one of campaign and country 'all'.
-- Reads: fct_spend_response.
select network, campaign, country, status, days, curve_form, exponent_b, exponent_b_low, exponent_b_high, scale_a,
       saturating_capacity, saturating_half_spend, r_squared, current_spend, average_cpi, marginal_cpi, ltv_d180,
       headroom_spend, max_spend, saturated, inflated_days, advice
from fct_spend_response
where app_id = $1 and (campaign <> 'all' or country <> 'all')
order by network, country <> 'all', campaign, country;
