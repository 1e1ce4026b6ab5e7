-- ltv_backtest: each projection method's back-test on one app, per horizon: held-out points,
-- mean absolute relative error (projected / observed - 1) and whether the app chose the method.
-- Grain: one row per (method, horizon). Reads: fct_ltv_backtest.
select method, horizon, count(*)::integer as points, avg(abs(error)) as mean_abs_error, bool_or(chosen) as chosen
from fct_ltv_backtest
where app_id = $1
group by method, horizon
order by horizon, mean_abs_error, method;
