-- 0132_revenue_split: revenue to date split into gross (purchases), refunds (purchase rows with a
-- negative revenue, stored as the positive amount refunded) and net (gross - refunds), per network
-- and for the app ('all'), as the LTV counts revenue (docs/metrics.md, "Gross, refunds and net
-- revenue"). Rebuilt whole by every compute that builds the marts (marts/metrics/fct_revenue.sql).
-- Grain: one row per (app_id, network), network 'all' for the app. Reads: nothing.
create table fct_revenue (
    app_id        text    not null,
    network       text    not null,
    purchases     bigint  not null,
    refunds       bigint  not null,
    gross_revenue numeric not null,
    refunded      numeric not null,
    net_revenue   numeric not null,
    primary key (app_id, network)
);
