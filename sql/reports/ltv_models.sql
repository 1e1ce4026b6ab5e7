-- ltv_models: the fitted LTV model per network of one app (LTV(d) = a * d^b) and its quality.
-- Grain: one row per network. Reads: fct_ltv_models.
select network, model, a, b, points, fit_from_day, fit_to_day, residual_sd, r_squared, note
from fct_ltv_models
where app_id = $1
order by network <> 'all', network;
