-- 0011_compute_marts: the metric marts the reports and dash_* views read. Each is small (a few
-- thousand rows however long the history) and rebuilt from the rollups by every compute run.
-- Rates are fractions 0..1; money is USD; an undefined or immature value is NULL or a missing row,
-- never 0. Column names follow SPEC.md's CSV files. A network, campaign, country or platform of
-- 'all' means "not broken down". Grain: stated per table. Reads: nothing (compute writes these).

-- Grain: one row per (app_id, funnel, network, campaign, country, platform, step_index).
create table fct_funnel (
    app_id                    text    not null,
    funnel                    text    not null,
    network                   text    not null,
    campaign                  text    not null,
    country                   text    not null,
    platform                  text    not null,
    step_index                integer not null,
    step                      text    not null,
    users                     bigint  not null,
    conversion_from_previous  double precision,
    conversion_from_first     double precision,
    median_seconds_to_convert double precision,
    primary key (app_id, funnel, network, campaign, country, platform, step_index)
);

-- Aggregate top of the funnel: impressions -> clicks -> installs (paid networks' own installs).
-- Grain: one row per (app_id, network).
create table fct_funnel_top (
    app_id           text    not null,
    network          text    not null,
    impressions      bigint  not null,
    clicks           bigint  not null,
    installs         bigint  not null,
    ctr              double precision,
    click_to_install double precision,
    ipm              double precision,
    primary key (app_id, network)
);

-- Retention triangle, mature cells only. Grain: one row per (app_id, mode, cohort_date, network, day).
create table fct_retention (
    app_id      text    not null,
    mode        text    not null check (mode in ('classic', 'rolling')),
    cohort_date date    not null,
    network     text    not null,
    cohort_size bigint  not null,
    day         integer not null,
    retained    bigint  not null,
    rate        double precision,
    primary key (app_id, mode, cohort_date, network, day)
);

-- D1/D3/D7/D14/D30 over the cohorts mature for that day. Grain: (app_id, mode, network, day).
create table fct_retention_summary (
    app_id      text    not null,
    mode        text    not null,
    network     text    not null,
    day         integer not null,
    cohorts     integer not null,
    cohort_size bigint  not null,
    retained    bigint  not null,
    rate        double precision,
    primary key (app_id, mode, network, day)
);

-- Bracket retention: active at least once on days first_day..last_day.
-- Grain: one row per (app_id, network, bracket).
create table fct_retention_brackets (
    app_id      text    not null,
    network     text    not null,
    bracket     text    not null,
    first_day   integer not null,
    last_day    integer not null,
    cohorts     integer not null,
    cohort_size bigint  not null,
    retained    bigint  not null,
    rate        double precision,
    primary key (app_id, network, bracket)
);

-- Regular users (at least R opens on days 1..D) over cohorts mature for day D.
-- Grain: one row per (app_id, network).
create table fct_regular_users (
    app_id        text    not null,
    network       text    not null,
    cohorts       integer not null,
    cohort_size   bigint  not null,
    regular_users bigint  not null,
    rate          double precision,
    primary key (app_id, network)
);

-- LTV curve: observed (projected = false) for days every counted cohort has reached, and the
-- projection (projected = true) at the configured horizons with its interval.
-- Grain: one row per (app_id, network, day, projected).
create table fct_ltv (
    app_id    text    not null,
    network   text    not null,
    day       integer not null,
    projected boolean not null,
    cohorts   integer,
    installs  bigint,
    revenue   double precision,
    ltv       double precision,
    ltv_low   double precision,
    ltv_high  double precision,
    spend     double precision,
    roas      double precision,
    primary key (app_id, network, day, projected)
);

-- The fitted LTV model per network: LTV(d) = a * d^b, least squares on log-log.
-- Grain: one row per (app_id, network).
create table fct_ltv_models (
    app_id       text    not null,
    network      text    not null,
    model        text    not null,
    a            double precision,
    b            double precision,
    points       integer not null,
    fit_from_day integer,
    fit_to_day   integer,
    residual_sd  double precision,
    r_squared    double precision,
    note         text    not null,
    primary key (app_id, network)
);

-- CPI by day, campaign and country. Grain: one row per (app_id, date, network, campaign, country)
-- with 'all' rows for the per-network and per-day totals.
create table fct_cpi (
    app_id        text    not null,
    date          date    not null,
    network       text    not null,
    campaign      text    not null,
    country       text    not null,
    spend         double precision not null,
    impressions   bigint  not null,
    clicks        bigint  not null,
    installs      bigint  not null,
    paid_installs bigint  not null,
    cpi           double precision,
    blended_cpi   double precision,
    ctr           double precision,
    ipm           double precision,
    primary key (app_id, date, network, campaign, country)
);

-- k-factor of the invite program by the inviters' network, over cohorts mature for the window.
-- Grain: one row per (app_id, network).
create table fct_kfactor (
    app_id             text    not null,
    network            text    not null,
    cohorts            integer not null,
    cohort_size        bigint  not null,
    invites_sent       bigint  not null,
    viral_installs     bigint  not null,
    invites_per_user   double precision,
    invite_conversion  double precision,
    k_factor           double precision,
    cycle_time_hours   double precision,
    amplification      double precision,
    cpi                double precision,
    viral_adjusted_cpi double precision,
    primary key (app_id, network)
);

-- One line per network: what it costs, what it earns, and what to do about it.
-- Grain: one row per (app_id, network).
create table fct_networks (
    app_id             text    not null,
    network            text    not null,
    installs           bigint  not null,
    paid_installs      bigint  not null,
    spend              double precision not null,
    cpi                double precision,
    ltv_d7             double precision,
    ltv_d30            double precision,
    ltv_projected_d180 double precision,
    ltv_d180_low       double precision,
    ltv_d180_high      double precision,
    roas_d7            double precision,
    roas_d30           double precision,
    payback_day        integer,
    payback_basis      text,
    k_factor           double precision,
    verdict            text    not null,
    reason             text    not null,
    primary key (app_id, network)
);
