-- 0170_plan: the budget plan compute writes for each app (docs/metrics.md, "Budget plan"): the
-- daily spend per paid network that maximises projected D180 revenue for a budget equal to
-- today's total daily spend (the paid networks' mean daily spend over their last 14 days with
-- spend), from the response curves (fct_spend_response) and projected LTV (fct_ltv), each
-- network within 3x its largest day seen. Beside each line: today's spend, the planned one, the
-- installs, CPI, revenue and ROAS expected there with their intervals, and the marginal return
-- (revenue of the next dollar). network 'all' is the total. dash_plan (sql/dashboards) reads it.
-- Grain: one row per (app_id, network). Reads: nothing (written by compute's plan step).
create table fct_plan (
    app_id           text    not null,
    network          text    not null,
    horizon_day      integer not null,
    budget           numeric not null,
    status           text    not null,
    today_spend      numeric not null,
    planned_spend    numeric not null,
    installs         double precision not null,
    installs_low     double precision not null,
    installs_high    double precision not null,
    cpi              numeric,
    revenue          numeric not null,
    revenue_low      numeric not null,
    revenue_high     numeric not null,
    roas             double precision,
    roas_low         double precision,
    roas_high        double precision,
    marginal_return  double precision,
    note             text    not null default '',
    primary key (app_id, network)
);
