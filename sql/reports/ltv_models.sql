-- ltv_models: the LTV projection per network of one app: the method the back-test chose, its
-- back-test error and interval coverage, and the power law fitted beside it (a, b) and its quality.
-- Grain: one row per network. Reads: fct_ltv_models.
select network, model, a, b, points, fit_from_day, fit_to_day, residual_sd, r_squared, note,
       method, projection, backtest_error, backtest_points, interval_coverage, coverage_points
from fct_ltv_models
where app_id = $1
order by network <> 'all', network;
