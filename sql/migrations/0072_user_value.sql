-- 0072_user_value: each buyer's expected value from the per-user purchase models, the per-user
-- side of the LTV projection: P(alive) and expected purchase days from BG/NBD (the app's fit), the
-- expected revenue per purchase day from Gamma-Gamma (the network's fit with 300 buyers, else the
-- app's; else the network's mean), and their product, from the user's age up to the projection
-- horizon (the largest [ltv].horizons day). Made afresh whenever the per-user model is (a full
-- compute, then weekly); data_through says on which data.
-- Grain: one row per (app_id, user_id) with at least one purchase day. Reads: nothing.
create table fct_user_value (
    app_id             text             not null,
    user_id            text             not null,
    network            text             not null,
    cohort_date        date             not null,
    purchase_days      integer          not null,
    last_purchase_day  integer          not null,
    age_days           integer          not null,
    revenue            numeric          not null,
    p_alive            double precision not null,
    horizon            integer          not null,
    expected_purchases double precision not null,
    expected_spend     double precision not null,
    expected_revenue   double precision not null,
    data_through       date             not null,
    primary key (app_id, user_id)
);

create index fct_user_value_by_network on fct_user_value (app_id, network, expected_revenue desc);
