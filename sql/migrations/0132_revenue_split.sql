-- 0132_revenue_split: revenue split into gross (purchases), refunds (purchase rows with a negative
-- revenue, stored as the positive amount refunded) and net (gross - refunded), per network and
-- for the app ('all'), over the days the LTV counts (days 0 to max_day after install;
-- docs/metrics.md, "Gross, refunds and net revenue"). Rebuilt whole by every compute that builds
-- the marts (marts/metrics/fct_revenue.sql) from the cohort rollups and the refunds alone, which
-- the partial index raw_purchases_refunds finds without reading the purchases.
-- Grain: fct_revenue one row per (app_id, network), network 'all' for the app. Reads: nothing.
create table fct_revenue (
    app_id        text    not null,
    network       text    not null,
    refunds       bigint  not null,
    gross_revenue numeric not null,
    refunded      numeric not null,
    net_revenue   numeric not null,
    primary key (app_id, network)
);

create index raw_purchases_refunds on raw_purchases (app_id, user_id) where revenue < 0;
