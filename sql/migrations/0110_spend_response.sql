-- 0110_spend_response: the marts of CPI saturation and peak-day inflation (docs/metrics.md,
-- "Spend response"), both written by compute's spend-response step from fct_cpi's per-network
-- daily rows (campaign and country 'all') and fct_networks' projected LTV_D180.
-- fct_spend_response: per network, the response curve installs = a * spend^b with weekday
-- effects (or status 'not enough spend history' and no numbers), the marginal and average CPI at
-- the current daily spend (the mean of the network's last 14 days with spend), the daily spend at
-- which the marginal CPI reaches the projected LTV_D180 (headroom_spend), the saturation flag
-- and a sentence to show beside the verdict (advice).
-- fct_cpi_inflated_days: per network, the days whose CPI is abnormally high against the
-- network's own trend, with the CPI expected there and the excess cost.
-- Grain: one row per (app_id, network); one row per (app_id, network, date). Reads: nothing.
create table fct_spend_response (
    app_id          text    not null,
    network         text    not null,
    status          text    not null,
    days            integer not null,
    exponent_b      double precision,
    exponent_b_low  double precision,
    exponent_b_high double precision,
    exponent_b_se   double precision,
    scale_a         double precision,
    r_squared       double precision,
    current_spend   numeric,
    average_cpi     numeric,
    marginal_cpi    numeric,
    ltv_d180        numeric,
    headroom_spend  numeric,
    max_spend       numeric,
    saturated       boolean,
    inflated_days   integer not null default 0,
    advice          text    not null,
    primary key (app_id, network)
);

create table fct_cpi_inflated_days (
    app_id        text    not null,
    network       text    not null,
    date          date    not null,
    spend         numeric not null,
    paid_installs bigint  not null,
    cpi           numeric not null,
    expected_cpi  numeric not null,
    robust_z      double precision not null,
    excess_cost   numeric not null,
    primary key (app_id, network, date)
);
