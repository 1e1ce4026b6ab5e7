-- spend_response: one line per paid network of one app: its response curve (or why there is none),
-- the form chosen (power law or saturating), the marginal and average CPI at the current daily
-- spend, the headroom against the projected LTV_D180, the saturation flag and the advice shown
-- beside the verdict.
-- Grain: one row per network (campaign and country 'all'). Reads: fct_spend_response.
select network, campaign, country, status, days, curve_form, exponent_b, exponent_b_low, exponent_b_high, scale_a,
       saturating_capacity, saturating_half_spend, r_squared, current_spend, average_cpi, marginal_cpi, ltv_d180,
       headroom_spend, max_spend, saturated, inflated_days, advice
from fct_spend_response
where app_id = $1 and campaign = 'all' and country = 'all'
order by current_spend desc nulls last, network;
