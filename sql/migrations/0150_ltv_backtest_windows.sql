-- 0150_ltv_backtest_windows: the LTV back-test judges the real extrapolation from windows of
-- cohorts (ComputeEngine+Projection, LTVBacktest): each point is the LTV on target_day of the
-- cohorts installed origin_day .. origin_day + from_day days after the app's first install,
-- projected from those cohorts as they stood from_day days after the window opened. Several
-- windows can share a target day, so origin_day joins the key; chosen marks the method chosen
-- for the point's horizon.
-- Grain: fct_ltv_backtest one row per (app_id, network, method, horizon, origin_day, target_day).
-- Reads: nothing.
alter table fct_ltv_backtest
    add column origin_day integer not null default 0;

alter table fct_ltv_backtest drop constraint fct_ltv_backtest_pkey;
alter table fct_ltv_backtest add primary key (app_id, network, method, horizon, origin_day, target_day);
