-- 0070_ltv_backtest: the LTV projection chosen by back-test, and the chained observed curve.
-- fct_ltv gains ltv_chained (the pooled curve that cannot fall: the sum over days 0..N of the
-- revenue per install on each day of the cohorts mature for it) and shown (whether enough installs
-- back the day for a chart to draw it). fct_ltv_models gains the method projecting each network,
-- the app's back-test error of that method and the coverage of its intervals; a, b stay the
-- power law's (fitted whichever method was chosen). fct_ltv_backtest keeps every method's
-- back-test projections beside what was observed, with the last data date they were made on (the
-- per-user model's are made again only weekly, see ComputeEngine+Projection); fct_ltv_projection the chosen projection for
-- each day past the observed ones up to the projection horizon (payback reads it).
-- Grain: fct_ltv_backtest one row per (app_id, network, method, horizon, target_day);
-- fct_ltv_projection one row per (app_id, network, day). Reads: nothing.
alter table fct_ltv
    add column ltv_chained numeric,
    add column shown       boolean not null default true;

alter table fct_ltv_models
    add column method            text,
    add column projection        text,
    add column backtest_error    double precision,
    add column backtest_points   integer,
    add column interval_coverage double precision,
    add column coverage_points   integer;

create table fct_ltv_backtest (
    app_id     text             not null,
    network    text             not null,
    method     text             not null,
    horizon    integer          not null,
    from_day   integer          not null,
    target_day integer          not null,
    projected  numeric          not null,
    observed   numeric          not null,
    error      double precision not null,
    chosen     boolean          not null,
    data_through date           not null,
    primary key (app_id, network, method, horizon, target_day)
);

create table fct_ltv_projection (
    app_id  text    not null,
    network text    not null,
    day     integer not null,
    ltv     numeric not null,
    primary key (app_id, network, day)
);
