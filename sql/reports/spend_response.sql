-- spend_response: one line per paid network of one app: its response curve (or why there is none),
-- the marginal and average CPI at the current daily spend, the headroom against the projected
-- LTV_D180, the saturation flag and the advice shown beside the verdict.
-- Grain: one row per network. Reads: fct_spend_response.
select network, status, days, exponent_b, exponent_b_low, exponent_b_high, scale_a, r_squared, current_spend,
       average_cpi, marginal_cpi, ltv_d180, headroom_spend, max_spend, saturated, inflated_days, advice
from fct_spend_response
where app_id = $1
order by current_spend desc nulls last, network;
