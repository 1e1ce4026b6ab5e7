-- schema: the schema funnel's migrations build (sql/migrations), as DDL read back from the
-- catalog by sql/schema/describe.sql: tables, constraints, indexes, views and functions, in
-- name order. Generated: `make schema` writes it again; a test fails while it differs. It is
-- for reading; the migrations are what builds a database.

create table compute_app_inputs (
    app_id text not null,
    has_opens boolean not null,
    has_onboarding boolean not null,
    has_purchases boolean not null,
    onboarding_step text not null
);

alter table compute_app_inputs add constraint compute_app_inputs_pkey PRIMARY KEY (app_id);

create table compute_files (
    file_id bigint not null,
    folded_at timestamp with time zone not null default now()
);

alter table compute_files add constraint compute_files_pkey PRIMARY KEY (file_id);

create table compute_funnel_breakdowns (
    funnel text not null,
    property text not null,
    source text not null,
    attribution text not null
);

alter table compute_funnel_breakdowns add constraint compute_funnel_breakdowns_pkey PRIMARY KEY (funnel);
alter table compute_funnel_breakdowns add constraint compute_funnel_breakdowns_source_check CHECK ((source = ANY (ARRAY['event'::text, 'person'::text])));

create table compute_funnels (
    app_id text not null,
    funnel text not null,
    step_index integer not null,
    step text not null
);

alter table compute_funnels add constraint compute_funnels_pkey PRIMARY KEY (app_id, funnel, step_index);

create table compute_runs (
    run_id bigint not null default nextval('compute_runs_run_id_seq'::regclass),
    mode text not null,
    cohort_days integer not null,
    users bigint not null,
    started_at timestamp with time zone not null,
    finished_at timestamp with time zone not null default now()
);

alter table compute_runs add constraint compute_runs_mode_check CHECK ((mode = ANY (ARRAY['full'::text, 'incremental'::text])));
alter table compute_runs add constraint compute_runs_pkey PRIMARY KEY (run_id);

create table compute_settings (
    app_id text not null,
    time_zone text not null,
    day_rule text not null,
    onboarding_step text not null,
    window_days integer not null,
    purchase_window_days integer not null,
    regular_opens integer not null,
    regular_days integer not null,
    revenue_share numeric not null,
    kfactor_window_days integer not null,
    max_day integer not null,
    brackets int4range[] not null,
    double_down_ratio numeric not null,
    cut_ratio numeric not null,
    config_fingerprint text not null,
    min_installs integer not null default 100,
    min_payers integer not null default 10,
    ltv_horizon integer not null default 365,
    source text,
    settings jsonb
);

alter table compute_settings add constraint compute_settings_day_rule_check CHECK ((day_rule = ANY (ARRAY['calendar'::text, 'hours24'::text])));
alter table compute_settings add constraint compute_settings_pkey PRIMARY KEY (app_id);

create table compute_state (
    app_id text not null,
    data_through_date date not null,
    computed_at timestamp with time zone not null default now()
);

alter table compute_state add constraint compute_state_pkey PRIMARY KEY (app_id);

create table computed_under (
    lane text not null,
    fingerprint text,
    source text,
    settings jsonb,
    time_zone text not null,
    day_rule text not null,
    run_id bigint,
    recorded_at timestamp with time zone not null default now()
);

alter table computed_under add constraint computed_under_day_rule_check CHECK ((day_rule = ANY (ARRAY['calendar'::text, 'hours24'::text])));
alter table computed_under add constraint computed_under_lane_check CHECK ((lane = ANY (ARRAY['metrics'::text, 'friction'::text])));
alter table computed_under add constraint computed_under_pkey PRIMARY KEY (lane);

create table currency_rate_days (
    currency text not null,
    day date not null,
    usd_per_unit numeric(20,10) not null
);

alter table currency_rate_days add constraint currency_rate_days_pkey PRIMARY KEY (currency, day);

create table currency_rate_spans (
    currency text not null,
    first_day date,
    last_day date,
    before_usd numeric(20,10),
    after_usd numeric(20,10)
);

alter table currency_rate_spans add constraint currency_rate_spans_pkey PRIMARY KEY (currency);

create table currency_rates (
    currency text not null,
    usd_per_unit numeric(20,10) not null,
    updated_at timestamp with time zone not null default now()
);

alter table currency_rates add constraint currency_rates_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text));
alter table currency_rates add constraint currency_rates_pkey PRIMARY KEY (currency);
alter table currency_rates add constraint currency_rates_usd_per_unit_check CHECK ((usd_per_unit > (0)::numeric));

create table currency_rates_built (
    singleton boolean not null default true,
    fingerprint text not null
);

alter table currency_rates_built add constraint currency_rates_built_pkey PRIMARY KEY (singleton);
alter table currency_rates_built add constraint currency_rates_built_singleton_check CHECK (singleton);

create table dashboard_views (
    name text not null,
    checksum_sha256 text not null,
    applied_at timestamp with time zone not null default now()
);

alter table dashboard_views add constraint dashboard_views_pkey PRIMARY KEY (name);

create table dirty_cohort_days (
    app_id text not null,
    cohort_date date not null,
    first_marked_at timestamp with time zone not null default now()
);

alter table dirty_cohort_days add constraint dirty_cohort_days_pkey PRIMARY KEY (app_id, cohort_date);

create table fct_campaigns (
    app_id text not null,
    network text not null,
    campaign text not null,
    country text not null,
    cohorts integer not null,
    installs bigint not null,
    paid_installs bigint not null,
    payers bigint not null,
    spend numeric not null,
    cpi numeric,
    ltv_d7 numeric,
    ltv_d30 numeric,
    ltv_d90 numeric,
    roas_d7 double precision,
    roas_d30 double precision,
    roas_d90 double precision,
    last_day integer,
    observed_ltv_d7 numeric,
    pooled_ltv_d7 numeric,
    pooling_weight double precision,
    ltv_projected_d180 numeric,
    ltv_d180_low numeric,
    ltv_d180_high numeric,
    roas_projected_d180 double precision,
    payback_day integer,
    payback_basis text,
    verdict text not null default 'n/a'::text,
    reason text not null default ''::text
);

alter table fct_campaigns add constraint fct_campaigns_pkey PRIMARY KEY (app_id, network, campaign, country);

create table fct_cpi (
    app_id text not null,
    date date not null,
    network text not null,
    campaign text not null,
    country text not null,
    spend numeric not null,
    impressions bigint not null,
    clicks bigint not null,
    installs bigint not null,
    paid_installs bigint not null,
    cpi numeric,
    blended_cpi numeric,
    ctr double precision,
    ipm double precision
);

alter table fct_cpi add constraint fct_cpi_pkey PRIMARY KEY (app_id, date, network, campaign, country);

create table fct_cpi_hourly (
    app_id text not null,
    network text not null,
    hour smallint not null,
    days integer not null,
    spend numeric not null,
    paid_installs bigint not null,
    cpi numeric,
    cpi_index double precision
);

alter table fct_cpi_hourly add constraint fct_cpi_hourly_pkey PRIMARY KEY (app_id, network, hour);

create table fct_cpi_inflated_days (
    app_id text not null,
    network text not null,
    date date not null,
    spend numeric not null,
    paid_installs bigint not null,
    cpi numeric not null,
    expected_cpi numeric not null,
    robust_z double precision not null,
    excess_cost numeric not null
);

alter table fct_cpi_inflated_days add constraint fct_cpi_inflated_days_pkey PRIMARY KEY (app_id, network, date);

create table fct_custom_retention (
    app_id text not null,
    retention text not null,
    network text not null,
    cohort_date date not null,
    period integer not null,
    cohort_size integer not null,
    retained integer not null,
    rolling_retained integer not null
);

alter table fct_custom_retention add constraint fct_custom_retention_pkey PRIMARY KEY (app_id, retention, network, cohort_date, period);

create table fct_custom_retention_summary (
    app_id text not null,
    retention text not null,
    network text not null,
    measure text not null,
    first_period integer not null,
    last_period integer not null,
    cohorts integer not null,
    cohort_size integer not null,
    retained integer not null,
    rate double precision
);

alter table fct_custom_retention_summary add constraint fct_custom_retention_summary_measure_check CHECK ((measure = ANY (ARRAY['classic'::text, 'rolling'::text, 'bracket'::text])));
alter table fct_custom_retention_summary add constraint fct_custom_retention_summary_pkey PRIMARY KEY (app_id, retention, network, measure, first_period, last_period);

create table fct_friction_breakdown (
    app_id text not null,
    screen text not null,
    friction_type text not null,
    dimension text not null,
    value text not null,
    users_hit integer not null,
    dropped_hit integer not null,
    dropoff_hit double precision,
    dropoff_not_hit double precision,
    relative_risk double precision,
    users_lost double precision not null,
    share_of_users_lost double precision,
    explains_effect boolean not null
);

alter table fct_friction_breakdown add constraint fct_friction_breakdown_check CHECK (((dropped_hit >= 0) AND (dropped_hit <= users_hit)));
alter table fct_friction_breakdown add constraint fct_friction_breakdown_dimension_check CHECK ((dimension = ANY (ARRAY['input_mode'::text, 'orientation'::text, 'platform'::text])));
alter table fct_friction_breakdown add constraint fct_friction_breakdown_pkey PRIMARY KEY (app_id, screen, friction_type, dimension, value);
alter table fct_friction_breakdown add constraint fct_friction_breakdown_users_hit_check CHECK ((users_hit >= 0));
alter table fct_friction_breakdown add constraint fct_friction_breakdown_users_lost_check CHECK ((users_lost >= (0)::double precision));

create table fct_friction_episodes (
    app_id text not null,
    user_id text not null,
    session_id text not null,
    screen text not null,
    friction_type text not null,
    occurred_at timestamp with time zone not null,
    severity double precision not null,
    input_mode text,
    orientation text,
    platform text
);

alter table fct_friction_episodes add constraint fct_friction_episodes_severity_check CHECK (((severity >= (0)::double precision) AND (severity <= (1)::double precision)));

CREATE INDEX fct_friction_episodes_pair ON funnel.fct_friction_episodes USING btree (app_id, screen, friction_type, user_id);
CREATE INDEX fct_friction_episodes_session ON funnel.fct_friction_episodes USING btree (app_id, user_id, session_id);

create table fct_friction_impact (
    app_id text not null,
    screen text not null,
    friction_type text not null,
    users_hit integer not null,
    users_not_hit integer not null,
    dropped_hit integer not null,
    dropped_not_hit integer not null,
    dropoff_hit double precision,
    dropoff_not_hit double precision,
    relative_risk double precision,
    p_value double precision not null,
    q_value double precision not null,
    users_lost double precision not null,
    meets_minimum_sample boolean not null,
    flagged boolean not null,
    rank integer,
    d1_users_hit integer not null,
    d1_users_not_hit integer not null,
    d1_dropoff_hit double precision,
    d1_dropoff_not_hit double precision,
    d1_relative_risk double precision,
    d1_p_value double precision not null,
    computed_at timestamp with time zone not null default now()
);

alter table fct_friction_impact add constraint fct_friction_impact_check CHECK (((dropped_hit >= 0) AND (dropped_hit <= users_hit)));
alter table fct_friction_impact add constraint fct_friction_impact_check1 CHECK (((dropped_not_hit >= 0) AND (dropped_not_hit <= users_not_hit)));
alter table fct_friction_impact add constraint fct_friction_impact_check2 CHECK (((rank >= 1) AND ((rank IS NULL) = (NOT flagged))));
alter table fct_friction_impact add constraint fct_friction_impact_d1_p_value_check CHECK (((d1_p_value >= (0)::double precision) AND (d1_p_value <= (1)::double precision)));
alter table fct_friction_impact add constraint fct_friction_impact_p_value_check CHECK (((p_value >= (0)::double precision) AND (p_value <= (1)::double precision)));
alter table fct_friction_impact add constraint fct_friction_impact_pkey PRIMARY KEY (app_id, screen, friction_type);
alter table fct_friction_impact add constraint fct_friction_impact_q_value_check CHECK (((q_value >= (0)::double precision) AND (q_value <= (1)::double precision)));
alter table fct_friction_impact add constraint fct_friction_impact_users_hit_check CHECK ((users_hit >= 0));
alter table fct_friction_impact add constraint fct_friction_impact_users_lost_check CHECK ((users_lost >= (0)::double precision));
alter table fct_friction_impact add constraint fct_friction_impact_users_not_hit_check CHECK ((users_not_hit >= 0));

create table fct_funnel (
    app_id text not null,
    funnel text not null,
    network text not null,
    campaign text not null,
    country text not null,
    platform text not null,
    step_index integer not null,
    step text not null,
    users bigint not null,
    conversion_from_previous double precision,
    conversion_from_first double precision,
    median_seconds_to_convert double precision
);

alter table fct_funnel add constraint fct_funnel_pkey PRIMARY KEY (app_id, funnel, network, campaign, country, platform, step_index);

create table fct_funnel_breakdown (
    app_id text not null,
    funnel text not null,
    property text not null,
    breakdown text,
    step_index integer not null,
    step text not null,
    users bigint not null,
    conversion_from_previous double precision,
    conversion_from_first double precision,
    median_seconds_to_convert double precision
);

alter table fct_funnel_breakdown add constraint fct_funnel_breakdown_key UNIQUE NULLS NOT DISTINCT (app_id, funnel, breakdown, step_index);

create table fct_funnel_top (
    app_id text not null,
    network text not null,
    impressions bigint not null,
    clicks bigint not null,
    installs bigint not null,
    ctr double precision,
    click_to_install double precision,
    ipm double precision
);

alter table fct_funnel_top add constraint fct_funnel_top_pkey PRIMARY KEY (app_id, network);

create table fct_insights (
    app_id text not null,
    insight text not null,
    name text not null,
    line_index integer not null,
    line text not null,
    breakdown text not null,
    point_index integer not null,
    point text not null,
    interval_start timestamp without time zone not null,
    value double precision
);

alter table fct_insights add constraint fct_insights_insight_check CHECK ((insight = ANY (ARRAY['trends'::text, 'lifecycle'::text])));
alter table fct_insights add constraint fct_insights_pkey PRIMARY KEY (app_id, insight, name, line_index, point_index);

create table fct_kfactor (
    app_id text not null,
    network text not null,
    cohorts integer not null,
    cohort_size bigint not null,
    invites_sent bigint not null,
    viral_installs bigint not null,
    invites_per_user double precision,
    invite_conversion double precision,
    k_factor double precision,
    cycle_time_hours double precision,
    amplification double precision,
    cpi numeric,
    viral_adjusted_cpi numeric
);

alter table fct_kfactor add constraint fct_kfactor_pkey PRIMARY KEY (app_id, network);

create table fct_ltv (
    app_id text not null,
    network text not null,
    day integer not null,
    projected boolean not null,
    cohorts integer,
    installs bigint,
    revenue numeric,
    ltv numeric,
    ltv_low numeric,
    ltv_high numeric,
    spend numeric,
    roas double precision,
    ltv_chained numeric,
    shown boolean not null default true
);

alter table fct_ltv add constraint fct_ltv_pkey PRIMARY KEY (app_id, network, day, projected);

create table fct_ltv_backtest (
    app_id text not null,
    network text not null,
    method text not null,
    horizon integer not null,
    from_day integer not null,
    target_day integer not null,
    projected numeric not null,
    observed numeric not null,
    error double precision not null,
    chosen boolean not null,
    data_through date not null,
    origin_day integer not null default 0
);

alter table fct_ltv_backtest add constraint fct_ltv_backtest_pkey PRIMARY KEY (app_id, network, method, horizon, origin_day, target_day);

create table fct_ltv_models (
    app_id text not null,
    network text not null,
    model text not null,
    a double precision,
    b double precision,
    points integer not null,
    fit_from_day integer,
    fit_to_day integer,
    residual_sd double precision,
    r_squared double precision,
    note text not null,
    method text,
    projection text,
    backtest_error double precision,
    backtest_points integer,
    interval_coverage double precision,
    coverage_points integer
);

alter table fct_ltv_models add constraint fct_ltv_models_pkey PRIMARY KEY (app_id, network);

create table fct_ltv_projection (
    app_id text not null,
    network text not null,
    day integer not null,
    ltv numeric not null
);

alter table fct_ltv_projection add constraint fct_ltv_projection_pkey PRIMARY KEY (app_id, network, day);

create table fct_networks (
    app_id text not null,
    network text not null,
    installs bigint not null,
    paid_installs bigint not null,
    spend numeric not null,
    cpi numeric,
    ltv_d7 numeric,
    ltv_d30 numeric,
    ltv_projected_d180 numeric,
    ltv_d180_low numeric,
    ltv_d180_high numeric,
    roas_d7 double precision,
    roas_d30 double precision,
    payback_day integer,
    payback_basis text,
    k_factor double precision,
    verdict text not null,
    reason text not null,
    payers bigint
);

alter table fct_networks add constraint fct_networks_pkey PRIMARY KEY (app_id, network);

create table fct_plan (
    app_id text not null,
    network text not null,
    horizon_day integer not null,
    budget numeric not null,
    status text not null,
    today_spend numeric not null,
    planned_spend numeric not null,
    installs double precision not null,
    installs_low double precision not null,
    installs_high double precision not null,
    cpi numeric,
    revenue numeric not null,
    revenue_low numeric not null,
    revenue_high numeric not null,
    roas double precision,
    roas_low double precision,
    roas_high double precision,
    marginal_return double precision,
    note text not null default ''::text
);

alter table fct_plan add constraint fct_plan_pkey PRIMARY KEY (app_id, network);

create table fct_regular_users (
    app_id text not null,
    network text not null,
    cohorts integer not null,
    cohort_size bigint not null,
    regular_users bigint not null,
    rate double precision
);

alter table fct_regular_users add constraint fct_regular_users_pkey PRIMARY KEY (app_id, network);

create table fct_retention_brackets (
    app_id text not null,
    network text not null,
    bracket text not null,
    first_day integer not null,
    last_day integer not null,
    cohorts integer not null,
    cohort_size bigint not null,
    retained bigint not null,
    rate double precision
);

alter table fct_retention_brackets add constraint fct_retention_brackets_pkey PRIMARY KEY (app_id, network, bracket);

create table fct_retention_cells (
    app_id text not null,
    cohort_date date not null,
    network text not null,
    day integer not null,
    cohort_size bigint not null,
    retained bigint not null,
    last_active integer not null
);

alter table fct_retention_cells add constraint fct_retention_cells_pkey PRIMARY KEY (app_id, cohort_date, network, day);

create table fct_retention_summary (
    app_id text not null,
    mode text not null,
    network text not null,
    day integer not null,
    cohorts integer not null,
    cohort_size bigint not null,
    retained bigint not null,
    rate double precision
);

alter table fct_retention_summary add constraint fct_retention_summary_pkey PRIMARY KEY (app_id, mode, network, day);

create table fct_revenue (
    app_id text not null,
    network text not null,
    refunds bigint not null,
    gross_revenue numeric not null,
    refunded numeric not null,
    net_revenue numeric not null
);

alter table fct_revenue add constraint fct_revenue_pkey PRIMARY KEY (app_id, network);

create table fct_spend_response (
    app_id text not null,
    network text not null,
    status text not null,
    days integer not null,
    exponent_b double precision,
    exponent_b_low double precision,
    exponent_b_high double precision,
    exponent_b_se double precision,
    scale_a double precision,
    r_squared double precision,
    current_spend numeric,
    average_cpi numeric,
    marginal_cpi numeric,
    ltv_d180 numeric,
    headroom_spend numeric,
    max_spend numeric,
    saturated boolean,
    inflated_days integer not null default 0,
    advice text not null,
    campaign text not null default 'all'::text,
    country text not null default 'all'::text,
    curve_form text,
    saturating_capacity double precision,
    saturating_half_spend double precision,
    aic_power_law double precision,
    aic_saturating double precision,
    exponent_b_se_ordinary double precision
);

alter table fct_spend_response add constraint fct_spend_response_pkey PRIMARY KEY (app_id, network, campaign, country);

create table fct_user_value (
    app_id text not null,
    user_id text not null,
    network text not null,
    cohort_date date not null,
    purchase_days integer not null,
    last_purchase_day integer not null,
    age_days integer not null,
    revenue numeric not null,
    p_alive double precision not null,
    horizon integer not null,
    expected_purchases double precision not null,
    expected_spend double precision not null,
    expected_revenue double precision not null,
    data_through date not null
);

alter table fct_user_value add constraint fct_user_value_pkey PRIMARY KEY (app_id, user_id);

CREATE INDEX fct_user_value_by_network ON funnel.fct_user_value USING btree (app_id, network, expected_revenue DESC);

create table friction_files (
    file_id bigint not null
);

alter table friction_files add constraint friction_files_pkey PRIMARY KEY (file_id);

create table identity_links (
    app_id text not null,
    device_id text not null,
    user_id text not null,
    file_id bigint not null,
    linked_at timestamp with time zone not null default now()
);

alter table identity_links add constraint identity_links_pkey PRIMARY KEY (app_id, device_id);

create table ingest_files (
    file_id bigint not null default nextval('ingest_files_file_id_seq'::regclass),
    path text not null,
    kind text,
    content_sha256 text not null,
    size_bytes bigint not null,
    status text not null default 'queued'::text,
    claimed_by text,
    lease_expires_at timestamp with time zone,
    attempts integer not null default 0,
    rows_read bigint,
    rows_loaded bigint,
    duplicates bigint,
    rejected bigint,
    message text,
    enqueued_at timestamp with time zone not null default now(),
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    assume_tz text,
    lines bigint,
    header_lines bigint,
    blank_lines bigint,
    continuation_lines bigint,
    app_time_zones jsonb,
    default_tz text,
    max_reject_share double precision,
    ranks_as bigint,
    superseded_at timestamp with time zone,
    source text,
    revenue_minor_units boolean not null default false,
    vendor_app_id text
);

alter table ingest_files add constraint ingest_files_pkey PRIMARY KEY (file_id);
alter table ingest_files add constraint ingest_files_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'loading'::text, 'loaded'::text, 'refused'::text, 'failed'::text])));

CREATE INDEX ingest_files_claim ON funnel.ingest_files USING btree (status, enqueued_at, file_id) WHERE (status = ANY (ARRAY['queued'::text, 'loading'::text]));
CREATE INDEX ingest_files_claimable ON funnel.ingest_files USING btree (enqueued_at) WHERE (status = ANY (ARRAY['queued'::text, 'loading'::text]));
CREATE UNIQUE INDEX ingest_files_live_content ON funnel.ingest_files USING btree (content_sha256) WHERE ((status = ANY (ARRAY['queued'::text, 'loading'::text, 'loaded'::text])) AND (superseded_at IS NULL));

create table ingest_rejects (
    reject_id bigint not null default nextval('ingest_rejects_reject_id_seq'::regclass),
    file_id bigint not null,
    path text not null,
    line bigint not null,
    kind text,
    raw text not null,
    reason text not null,
    rejected_at timestamp with time zone not null default now()
);

alter table ingest_rejects add constraint ingest_rejects_file_id_fkey FOREIGN KEY (file_id) REFERENCES ingest_files(file_id) ON DELETE CASCADE;
alter table ingest_rejects add constraint ingest_rejects_pkey PRIMARY KEY (reject_id);

CREATE INDEX ingest_rejects_by_file ON funnel.ingest_rejects USING btree (file_id, line);

create table int_cohort_bracket_rollup (
    app_id text not null,
    cohort_date date not null,
    network text not null,
    campaign text not null,
    country text not null,
    platform text not null,
    bracket_index integer not null,
    active_users integer not null
);

alter table int_cohort_bracket_rollup add constraint int_cohort_bracket_rollup_pkey PRIMARY KEY (app_id, cohort_date, network, campaign, country, platform, bracket_index);

create table int_cohort_day_rollup (
    app_id text not null,
    cohort_date date not null,
    network text not null,
    campaign text not null,
    country text not null,
    platform text not null,
    day_n integer not null,
    active_users integer not null,
    last_active_users integer not null,
    revenue_usd numeric(20,6) not null,
    payers integer not null,
    new_payers integer not null
);

alter table int_cohort_day_rollup add constraint int_cohort_day_rollup_pkey PRIMARY KEY (app_id, cohort_date, day_n, network, campaign, country, platform);

create table int_cohort_rollup (
    app_id text not null,
    cohort_date date not null,
    network text not null,
    campaign text not null,
    country text not null,
    platform text not null,
    installs integer not null,
    paid_installs integer not null,
    organic_installs integer not null,
    viral_installs integer not null,
    reinstalls integer not null,
    openers integer not null,
    onboarded integer not null,
    regular_users integer not null,
    payers integer not null,
    funnel_open integer not null,
    funnel_onboarded integer not null,
    funnel_regular integer not null,
    funnel_purchase integer not null,
    invites_sent integer not null
);

alter table int_cohort_rollup add constraint int_cohort_rollup_pkey PRIMARY KEY (app_id, cohort_date, network, campaign, country, platform);

create table int_friction_apps (
    app_id text not null,
    data_through timestamp with time zone
);

alter table int_friction_apps add constraint int_friction_apps_pkey PRIMARY KEY (app_id);

create table int_friction_hits (
    app_id text not null,
    screen text not null,
    friction_type text not null,
    user_id text not null,
    first_at timestamp with time zone not null,
    input_mode text,
    orientation text,
    platform text,
    counted_class smallint
);

alter table int_friction_hits add constraint int_friction_hits_pkey PRIMARY KEY (app_id, screen, friction_type, user_id);

CREATE INDEX int_friction_hits_by_user ON funnel.int_friction_hits USING btree (app_id, user_id);

create table int_friction_outcomes (
    app_id text not null,
    user_id text not null,
    completed boolean not null,
    returned_d1 boolean not null,
    counted_class smallint,
    day1_from timestamp with time zone,
    day1_to timestamp with time zone
);

alter table int_friction_outcomes add constraint int_friction_outcomes_pkey PRIMARY KEY (app_id, user_id);

create table int_friction_reached (
    app_id text not null,
    screen text not null,
    user_id text not null
);

alter table int_friction_reached add constraint int_friction_reached_pkey PRIMARY KEY (app_id, user_id, screen);

create table int_friction_screen_counts (
    app_id text not null,
    screen text not null,
    class smallint not null,
    users bigint not null
);

alter table int_friction_screen_counts add constraint int_friction_screen_counts_pkey PRIMARY KEY (app_id, screen, class);

create table int_friction_screens (
    app_id text not null,
    screen text not null
);

alter table int_friction_screens add constraint int_friction_screens_pkey PRIMARY KEY (app_id, screen);

create table int_funnel_medians (
    app_id text not null,
    funnel text not null,
    step_index integer not null,
    dim text not null,
    dim_value text not null,
    users bigint not null,
    anchor_seconds double precision,
    anchor_below bigint,
    anchor_ties bigint,
    median_seconds double precision
);

alter table int_funnel_medians add constraint int_funnel_medians_pkey PRIMARY KEY (app_id, funnel, step_index, dim, dim_value);

create table int_funnel_points (
    app_id text not null,
    funnel text not null,
    step_index integer not null,
    seconds double precision not null,
    user_id text not null,
    network text not null,
    campaign text not null,
    country text not null,
    platform text not null
);

alter table int_funnel_points add constraint int_funnel_points_pkey PRIMARY KEY (app_id, funnel, step_index, seconds, user_id);

create table int_network_day_rollup (
    app_id text not null,
    cohort_date date not null,
    network text not null,
    day_n integer not null,
    active_users integer not null,
    last_active_users integer not null,
    revenue_usd numeric(20,6) not null,
    payers integer not null,
    new_payers integer not null
);

alter table int_network_day_rollup add constraint int_network_day_rollup_pkey PRIMARY KEY (app_id, cohort_date, network, day_n);

create table int_spend_day_rollup (
    app_id text not null,
    spend_date date not null,
    network text not null,
    campaign text not null,
    country text not null,
    spend_usd numeric(20,6) not null,
    impressions bigint not null,
    clicks bigint not null
);

alter table int_spend_day_rollup add constraint int_spend_day_rollup_pkey PRIMARY KEY (app_id, spend_date, network, campaign, country);

create table int_user_facts (
    app_id text not null,
    user_id text not null,
    cohort_date date not null,
    installed_at timestamp with time zone not null,
    network text not null,
    campaign text not null,
    country text not null,
    platform text not null,
    acquisition text not null,
    installs integer not null,
    referrer_user_id text,
    invite_id text,
    first_open_at timestamp with time zone,
    onboarded_at timestamp with time zone,
    first_purchase_at timestamp with time zone,
    first_purchase_day integer,
    regular_opens integer not null,
    regular_at timestamp with time zone,
    funnel_open_at timestamp with time zone,
    funnel_onboarded_at timestamp with time zone,
    funnel_regular_at timestamp with time zone,
    funnel_purchase_at timestamp with time zone,
    invites_sent integer not null,
    last_active_day integer not null,
    inviter_user_id text,
    inviter_network text,
    inviter_cohort_date date,
    inviter_installed_at timestamp with time zone,
    counts_for_kfactor boolean not null default false,
    active_days integer[] not null default '{}'::integer[],
    purchase_days integer[] not null default '{}'::integer[],
    regular_open_times timestamp with time zone[] not null default '{}'::timestamp with time zone[],
    purchase_times timestamp with time zone[] not null default '{}'::timestamp with time zone[]
);

alter table int_user_facts add constraint int_user_facts_acquisition_check CHECK ((acquisition = ANY (ARRAY['paid'::text, 'organic'::text, 'viral'::text])));
alter table int_user_facts add constraint int_user_facts_pkey PRIMARY KEY (app_id, user_id);

CREATE INDEX int_user_facts_by_cohort ON funnel.int_user_facts USING btree (app_id, cohort_date);
CREATE INDEX int_user_facts_kfactor ON funnel.int_user_facts USING btree (app_id, inviter_cohort_date) INCLUDE (inviter_network, installed_at, inviter_installed_at) WHERE counts_for_kfactor;

create table int_user_funnel_breakdown_steps (
    app_id text not null,
    user_id text not null,
    funnel text not null,
    breakdown text,
    step_index integer not null,
    reached_at timestamp with time zone not null
);

alter table int_user_funnel_breakdown_steps add constraint int_user_funnel_breakdown_steps_key UNIQUE NULLS NOT DISTINCT (app_id, user_id, funnel, breakdown, step_index);

create table int_user_funnel_steps (
    app_id text not null,
    user_id text not null,
    funnel text not null,
    step_index integer not null,
    reached_at timestamp with time zone not null
);

alter table int_user_funnel_steps add constraint int_user_funnel_steps_pkey PRIMARY KEY (app_id, user_id, funnel, step_index);

create table int_user_retention (
    app_id text not null,
    retention text not null,
    user_id text not null,
    cohort_period integer not null,
    returned integer[] not null
);

alter table int_user_retention add constraint int_user_retention_pkey PRIMARY KEY (app_id, retention, user_id, cohort_period);

create table money_unconverted (
    app_id text not null,
    source text not null,
    currency text not null,
    day date not null,
    rows bigint not null,
    amount numeric not null
);

alter table money_unconverted add constraint money_unconverted_pkey PRIMARY KEY (app_id, source, currency, day);
alter table money_unconverted add constraint money_unconverted_source_check CHECK ((source = ANY (ARRAY['purchases'::text, 'ad_spend'::text])));

create table raw_ad_spend (
    app_id text not null,
    spend_date date not null,
    network text not null,
    campaign text not null default ''::text,
    country text not null default ''::text,
    spend numeric(20,6) not null,
    currency text not null default 'USD'::text,
    impressions bigint,
    clicks bigint,
    file_id bigint not null,
    hour smallint,
    adset text not null default ''::text,
    creative text not null default ''::text
) partition by RANGE (spend_date);

alter table raw_ad_spend add constraint raw_ad_spend_hour_range CHECK (((hour >= 0) AND (hour <= 23)));
alter table raw_ad_spend add constraint raw_ad_spend_key UNIQUE NULLS NOT DISTINCT (app_id, spend_date, network, campaign, country, adset, creative, hour);

CREATE INDEX raw_ad_spend_by_file ON ONLY funnel.raw_ad_spend USING btree (file_id);

create table raw_currency_rates (
    rate_date date not null,
    currency text not null,
    usd_per_unit numeric(20,10) not null,
    file_id bigint not null
);

alter table raw_currency_rates add constraint raw_currency_rates_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text));
alter table raw_currency_rates add constraint raw_currency_rates_pkey PRIMARY KEY (currency, rate_date);
alter table raw_currency_rates add constraint raw_currency_rates_usd_per_unit_check CHECK ((usd_per_unit > (0)::numeric));

create table raw_events (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    event text not null,
    occurred_at timestamp with time zone not null,
    properties jsonb,
    file_id bigint not null,
    device_id text
) partition by RANGE (occurred_at);

CREATE INDEX raw_events_by_file ON ONLY funnel.raw_events USING btree (file_id);
CREATE INDEX raw_events_by_name ON ONLY funnel.raw_events USING btree (app_id, event, occurred_at);
CREATE INDEX raw_events_by_user ON ONLY funnel.raw_events USING btree (app_id, user_id, occurred_at);

create unlogged table raw_events_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_events_keys add constraint raw_events_keys_pkey PRIMARY KEY (event_id, app_id);

create table raw_installs (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    installed_at timestamp with time zone not null,
    network text not null,
    platform text,
    country text,
    campaign text,
    referrer_user_id text,
    invite_id text,
    file_id bigint not null,
    device_id text,
    adset text,
    creative text
) partition by RANGE (installed_at);

alter table raw_installs add constraint raw_installs_pkey PRIMARY KEY (app_id, event_id, installed_at);

CREATE INDEX raw_installs_by_file ON ONLY funnel.raw_installs USING btree (file_id);
CREATE INDEX raw_installs_by_user ON ONLY funnel.raw_installs USING btree (app_id, user_id, installed_at);

create table raw_invites (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    invite_id text not null,
    sent_at timestamp with time zone not null,
    channel text,
    file_id bigint not null,
    device_id text
) partition by RANGE (sent_at);

CREATE INDEX raw_invites_by_file ON ONLY funnel.raw_invites USING btree (file_id);
CREATE INDEX raw_invites_by_invite ON ONLY funnel.raw_invites USING btree (app_id, invite_id);
CREATE INDEX raw_invites_device_people ON ONLY funnel.raw_invites USING btree (app_id, user_id) WHERE (user_id ~~ 'device:%'::text);

create unlogged table raw_invites_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_invites_keys add constraint raw_invites_keys_pkey PRIMARY KEY (event_id, app_id);

create table raw_opens (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    opened_at timestamp with time zone not null,
    session_seconds integer,
    file_id bigint not null,
    device_id text
) partition by RANGE (opened_at);

CREATE INDEX raw_opens_by_file ON ONLY funnel.raw_opens USING btree (file_id);
CREATE INDEX raw_opens_device_people ON ONLY funnel.raw_opens USING btree (app_id, user_id) WHERE (user_id ~~ 'device:%'::text);

create unlogged table raw_opens_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_opens_keys add constraint raw_opens_keys_pkey PRIMARY KEY (event_id, app_id);

create table raw_purchases (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    purchased_at timestamp with time zone not null,
    revenue numeric(20,6) not null,
    currency text not null default 'USD'::text,
    product_id text,
    file_id bigint not null,
    device_id text
) partition by RANGE (purchased_at);

CREATE INDEX raw_purchases_by_file ON ONLY funnel.raw_purchases USING btree (file_id);
CREATE INDEX raw_purchases_device_people ON ONLY funnel.raw_purchases USING btree (app_id, user_id) WHERE (user_id ~~ 'device:%'::text);
CREATE INDEX raw_purchases_refunds ON ONLY funnel.raw_purchases USING btree (app_id, user_id) WHERE (revenue < (0)::numeric);

create unlogged table raw_purchases_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_purchases_keys add constraint raw_purchases_keys_pkey PRIMARY KEY (event_id, app_id);

create table raw_retention (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    day integer not null,
    reported_at timestamp with time zone not null,
    file_id bigint not null,
    device_id text
) partition by RANGE (reported_at);

CREATE INDEX raw_retention_by_file ON ONLY funnel.raw_retention USING btree (file_id);
CREATE INDEX raw_retention_device_people ON ONLY funnel.raw_retention USING btree (app_id, user_id) WHERE (user_id ~~ 'device:%'::text);

create unlogged table raw_retention_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_retention_keys add constraint raw_retention_keys_pkey PRIMARY KEY (event_id, app_id);

create table raw_steps (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    occurred_at timestamp with time zone not null,
    step text not null,
    screen text,
    file_id bigint not null,
    device_id text
) partition by RANGE (occurred_at);

CREATE INDEX raw_steps_by_file ON ONLY funnel.raw_steps USING btree (file_id);
CREATE INDEX raw_steps_by_user ON ONLY funnel.raw_steps USING btree (app_id, user_id);

create unlogged table raw_steps_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_steps_keys add constraint raw_steps_keys_pkey PRIMARY KEY (event_id, app_id);

create table raw_ux (
    event_id text not null,
    app_id text not null,
    user_id text not null,
    session_id text not null,
    occurred_at timestamp with time zone not null,
    screen text not null,
    type text not null,
    phase text,
    orientation text,
    feedback_shown boolean,
    permission text,
    guidance_shown boolean,
    field text,
    message_shown boolean,
    bad_state boolean,
    input_mode text,
    kb_x real,
    kb_y real,
    kb_w real,
    kb_h real,
    focus_x real,
    focus_y real,
    focus_w real,
    focus_h real,
    action_x real,
    action_y real,
    action_w real,
    action_h real,
    caret_y real,
    screen_w real,
    screen_h real,
    file_id bigint not null,
    device_id text
) partition by RANGE (occurred_at);

CREATE INDEX raw_ux_by_file ON ONLY funnel.raw_ux USING btree (file_id);
CREATE INDEX raw_ux_by_session ON ONLY funnel.raw_ux USING btree (user_id, app_id, session_id);

create unlogged table raw_ux_keys (
    app_id text not null,
    event_id text not null
);

alter table raw_ux_keys add constraint raw_ux_keys_pkey PRIMARY KEY (event_id, app_id);

create table schema_migrations (
    version integer not null,
    name text not null,
    checksum_sha256 text not null,
    applied_at timestamp with time zone not null default now()
);

alter table schema_migrations add constraint schema_migrations_pkey PRIMARY KEY (version);

create view analysis_events as
 SELECT 'installs'::text AS kind, raw_installs.app_id, raw_installs.event_id, raw_installs.user_id,
    'install'::text AS event, raw_installs.installed_at AS occurred_at,
    jsonb_strip_nulls(jsonb_build_object('network', raw_installs.network, 'platform', raw_installs.platform, 'country', raw_installs.country, 'campaign', raw_installs.campaign, 'referrer_user_id', raw_installs.referrer_user_id, 'invite_id', raw_installs.invite_id)) AS properties
   FROM raw_installs
UNION ALL
 SELECT 'opens'::text AS kind, raw_opens.app_id, raw_opens.event_id, raw_opens.user_id,
    'app_open'::text AS event, raw_opens.opened_at AS occurred_at,
    jsonb_strip_nulls(jsonb_build_object('session_seconds', raw_opens.session_seconds)) AS properties
   FROM raw_opens
UNION ALL
 SELECT 'retention'::text AS kind, raw_retention.app_id, raw_retention.event_id,
    raw_retention.user_id, 'retention_day'::text AS event, raw_retention.reported_at AS occurred_at,
    jsonb_build_object('day', raw_retention.day) AS properties
   FROM raw_retention
UNION ALL
 SELECT 'purchases'::text AS kind, raw_purchases.app_id, raw_purchases.event_id,
    raw_purchases.user_id, 'purchase'::text AS event, raw_purchases.purchased_at AS occurred_at,
    jsonb_strip_nulls(jsonb_build_object('revenue', raw_purchases.revenue, 'currency', raw_purchases.currency, 'product_id', raw_purchases.product_id)) AS properties
   FROM raw_purchases
  WHERE raw_purchases.revenue >= 0::numeric
UNION ALL
 SELECT 'invites'::text AS kind, raw_invites.app_id, raw_invites.event_id, raw_invites.user_id,
    'invite_sent'::text AS event, raw_invites.sent_at AS occurred_at,
    jsonb_strip_nulls(jsonb_build_object('invite_id', raw_invites.invite_id, 'channel', raw_invites.channel)) AS properties
   FROM raw_invites
UNION ALL
 SELECT 'steps'::text AS kind, raw_steps.app_id, raw_steps.event_id, raw_steps.user_id,
    raw_steps.step AS event, raw_steps.occurred_at,
    jsonb_strip_nulls(jsonb_build_object('screen', raw_steps.screen)) AS properties
   FROM raw_steps
UNION ALL
 SELECT 'ux'::text AS kind, raw_ux.app_id, raw_ux.event_id, raw_ux.user_id,
    'ux_'::text || raw_ux.type AS event, raw_ux.occurred_at,
    jsonb_strip_nulls(jsonb_build_object('session_id', raw_ux.session_id, 'screen', raw_ux.screen, 'phase', raw_ux.phase, 'orientation', raw_ux.orientation, 'feedback_shown', raw_ux.feedback_shown, 'permission', raw_ux.permission, 'guidance_shown', raw_ux.guidance_shown, 'field', raw_ux.field, 'message_shown', raw_ux.message_shown, 'bad_state', raw_ux.bad_state, 'input_mode', raw_ux.input_mode)) AS properties
   FROM raw_ux
UNION ALL
 SELECT 'events'::text AS kind, raw_events.app_id, raw_events.event_id, raw_events.user_id,
    raw_events.event, raw_events.occurred_at,
    COALESCE(raw_events.properties, '{}'::jsonb) AS properties
   FROM raw_events;

create view dash_acquisition as
 SELECT (c.date::timestamp without time zone AT TIME ZONE 'UTC'::text) AS "time", c.app_id, c.date,
    c.network, c.campaign, c.country, c.spend, c.impressions, c.clicks, c.installs, c.paid_installs,
    c.cpi, c.blended_cpi, c.ctr, c.ipm
   FROM fct_cpi c
  WHERE c.network <> 'all'::text AND NOT (c.campaign = 'all'::text AND c.country = 'all'::text);

create view dash_campaigns as
 SELECT k.app_id,
        CASE
            WHEN k.campaign = 'all'::text THEN 'network'::text
            WHEN k.country = 'all'::text THEN 'campaign'::text
            ELSE 'country'::text
        END AS level,
    k.network, k.campaign, k.country, k.cohorts, k.installs, k.paid_installs, k.payers, k.spend,
        CASE
            WHEN k.spend > 0::numeric THEN k.cpi
            ELSE NULL::numeric
        END AS cpi,
    k.ltv_d7, k.ltv_d30, k.ltv_d90, k.roas_d7, k.roas_d30, k.roas_d90, k.observed_ltv_d7,
    k.pooled_ltv_d7, k.pooling_weight, k.ltv_projected_d180, k.ltv_d180_low, k.ltv_d180_high,
    k.roas_projected_d180, k.payback_day, k.payback_basis, k.verdict, k.reason
   FROM fct_campaigns k;

create view dash_cpi_hourly as
 SELECT h.app_id, h.network, h.hour, h.days, h.spend, h.paid_installs, h.cpi, h.cpi_index
   FROM fct_cpi_hourly h;

create view dash_cpi_inflated_days as
 SELECT d.app_id, d.network, d.date, d.spend, d.paid_installs, d.cpi, d.expected_cpi, d.robust_z,
    d.excess_cost
   FROM fct_cpi_inflated_days d
  ORDER BY d.excess_cost DESC;

create view dash_cpi_weekday as
 WITH days AS (
         SELECT c.app_id, c.network, EXTRACT(isodow FROM c.date)::integer AS weekday, c.spend,
            c.paid_installs
           FROM fct_cpi c
          WHERE c.campaign = 'all'::text AND c.country = 'all'::text AND c.network <> 'all'::text AND c.spend > 0::numeric
        ), weekdays AS (
         SELECT days.app_id, days.network, days.weekday, count(*) AS days, sum(days.spend) AS spend,
            sum(days.paid_installs) AS paid_installs
           FROM days
          GROUP BY days.app_id, days.network, days.weekday
        ), overall AS (
         SELECT days.app_id, days.network,
            sum(days.spend) / NULLIF(sum(days.paid_installs), 0::numeric) AS cpi
           FROM days
          GROUP BY days.app_id, days.network
        )
 SELECT w.app_id, w.network, w.weekday, w.days, w.spend, w.paid_installs,
    w.spend / NULLIF(w.paid_installs, 0::numeric) AS cpi,
    (w.spend / NULLIF(w.paid_installs, 0::numeric) / NULLIF(o.cpi, 0::numeric))::double precision AS cpi_index
   FROM weekdays w
     JOIN overall o ON o.app_id = w.app_id AND o.network = w.network;

create view dash_custom_retention as
 SELECT s.app_id, s.retention, s.network, s.measure, s.first_period, s.last_period, s.cohorts,
    s.cohort_size, s.retained, s.rate
   FROM fct_custom_retention_summary s;

create view dash_custom_retention_triangle as
 SELECT (t.cohort_date::timestamp without time zone AT TIME ZONE 'UTC'::text) AS "time", t.app_id,
    t.retention, t.network, t.cohort_date, t.period, t.cohort_size, t.retained,
        CASE
            WHEN t.cohort_size > 0 THEN t.retained::double precision / t.cohort_size::double precision
            ELSE NULL::double precision
        END AS rate,
    t.rolling_retained,
        CASE
            WHEN t.cohort_size > 0 THEN t.rolling_retained::double precision / t.cohort_size::double precision
            ELSE NULL::double precision
        END AS rolling_rate
   FROM fct_custom_retention t;

create view dash_friction as
 SELECT f.app_id, f.screen, f.friction_type, f.users_hit, f.users_not_hit,
        CASE
            WHEN (f.users_hit + f.users_not_hit) > 0 THEN f.users_hit::double precision / (f.users_hit + f.users_not_hit)::double precision
            ELSE NULL::double precision
        END AS share_hit,
    f.dropoff_hit, f.dropoff_not_hit, f.relative_risk, f.p_value, f.q_value, f.users_lost, f.flagged,
    f.rank
   FROM fct_friction_impact f;

create view dash_funnel as
 SELECT f.app_id, f.funnel, f.network, f.country, f.step_index, f.step, f.users,
    f.conversion_from_previous, f.conversion_from_first, f.median_seconds_to_convert
   FROM fct_funnel f
  WHERE f.campaign = 'all'::text AND f.platform = 'all'::text AND (f.network = 'all'::text OR f.country = 'all'::text);

create view dash_funnel_breakdown as
 SELECT f.app_id, f.funnel, f.property, f.breakdown, f.step_index, f.step, f.users,
    f.conversion_from_previous, f.conversion_from_first, f.median_seconds_to_convert
   FROM fct_funnel_breakdown f;

create view dash_kfactor as
 SELECT k.app_id, k.network, k.cohort_size, k.invites_sent, k.viral_installs, k.invites_per_user,
    k.invite_conversion, k.k_factor, k.cycle_time_hours, k.amplification, k.cpi,
    k.viral_adjusted_cpi
   FROM fct_kfactor k;

create view dash_lifecycle as
 SELECT i.app_id, i.name AS lifecycle, i.line AS status, i.interval_start, i.value::bigint AS users
   FROM fct_insights i
  WHERE i.insight = 'lifecycle'::text;

create view dash_ltv_cpi as
 SELECT l.app_id, l.network, l.day, l.projected, l.installs, l.revenue, l.ltv, l.ltv_low, l.ltv_high,
    n.cpi,
        CASE
            WHEN n.cpi > 0::numeric THEN (l.ltv / n.cpi)::double precision
            ELSE NULL::double precision
        END AS ltv_over_cpi,
    l.roas, l.ltv_chained, l.shown
   FROM fct_ltv l
     LEFT JOIN fct_networks n ON n.app_id = l.app_id AND n.network = l.network;

create view dash_networks as
 SELECT n.app_id, n.network, n.installs, n.paid_installs, n.spend, n.cpi, n.ltv_d7, n.ltv_d30,
    n.ltv_projected_d180, n.ltv_d180_low, n.ltv_d180_high, n.roas_d7, n.roas_d30, n.payback_day,
    n.payback_basis, n.k_factor, n.verdict, n.reason,
    COALESCE(( SELECT r.gross_revenue
           FROM fct_revenue r
          WHERE r.app_id = n.app_id AND r.network = n.network), 0::numeric) AS gross_revenue,
    COALESCE(( SELECT r.refunded
           FROM fct_revenue r
          WHERE r.app_id = n.app_id AND r.network = n.network), 0::numeric) AS refunded,
    COALESCE(( SELECT r.net_revenue
           FROM fct_revenue r
          WHERE r.app_id = n.app_id AND r.network = n.network), 0::numeric) AS net_revenue
   FROM fct_networks n;

create view dash_plan as
 SELECT p.app_id, p.network, p.horizon_day, p.budget, p.status, p.today_spend, p.planned_spend,
        CASE
            WHEN p.today_spend > 0::numeric THEN p.planned_spend / p.today_spend - 1::numeric
            ELSE NULL::numeric
        END AS change,
    p.installs, p.installs_low, p.installs_high, p.cpi, p.revenue, p.revenue_low, p.revenue_high,
    p.roas, p.roas_low, p.roas_high, p.marginal_return, p.note
   FROM fct_plan p;

create view dash_retention as
 SELECT (r.cohort_date::timestamp without time zone AT TIME ZONE 'UTC'::text) AS "time", r.app_id,
    r.mode, r.cohort_date, r.network, r.cohort_size, r.day, r.retained, r.rate
   FROM fct_retention r;

create view dash_retention_summary as
 SELECT s.app_id, s.mode, s.network, s.day, s.cohorts, s.cohort_size, s.retained, s.rate
   FROM fct_retention_summary s;

create view dash_spend_response as
 SELECT r.app_id, r.network, r.status, r.days, r.exponent_b, r.exponent_b_low, r.exponent_b_high,
    r.exponent_b_se, r.scale_a, r.r_squared, r.current_spend, r.average_cpi, r.marginal_cpi,
    r.ltv_d180, r.headroom_spend, r.max_spend, r.saturated, r.inflated_days, r.advice, r.curve_form,
    r.saturating_capacity, r.saturating_half_spend, r.aic_power_law, r.aic_saturating,
    r.exponent_b_se_ordinary
   FROM fct_spend_response r
  WHERE r.campaign = 'all'::text AND r.country = 'all'::text;

create view dash_spend_response_segments as
 SELECT r.app_id, r.network, r.campaign, r.country, r.status, r.days, r.curve_form, r.exponent_b,
    r.exponent_b_low, r.exponent_b_high, r.scale_a, r.saturating_capacity, r.saturating_half_spend,
    r.current_spend, r.average_cpi, r.marginal_cpi, r.ltv_d180, r.headroom_spend, r.saturated,
    r.advice
   FROM fct_spend_response r
  WHERE r.campaign <> 'all'::text OR r.country <> 'all'::text;

create view dash_trends as
 SELECT i.app_id, i.name AS trend, i.line_index, i.line AS series, i.breakdown, i.interval_start,
    i.value
   FROM fct_insights i
  WHERE i.insight = 'trends'::text;

create view dash_user_value as
 SELECT v.app_id, v.user_id, v.network, v.cohort_date, v.purchase_days, v.last_purchase_day,
    v.age_days, v.revenue, v.p_alive, v.horizon, v.expected_purchases, v.expected_spend,
    v.expected_revenue,
    v.revenue::double precision + v.expected_revenue AS expected_value_at_horizon, v.data_through
   FROM fct_user_value v;

create view default_funnel_left_out as
 SELECT i.app_id, l.step_index, l.step, l.reason
   FROM compute_app_inputs i
     CROSS JOIN LATERAL ( VALUES (1,'first_open'::text,'no opens are loaded for this app'::text,NOT i.has_opens), (2,i.onboarding_step,format('no "%s" onboarding step is loaded for this app'::text, i.onboarding_step),NOT i.has_onboarding), (3,'regular_user'::text,'no opens are loaded for this app'::text,NOT i.has_opens), (4,'first_purchase'::text,'no purchases are loaded for this app'::text,NOT i.has_purchases)) l(step_index, step, reason, left_out)
  WHERE l.left_out;

create view fct_retention as
 SELECT fct_retention_cells.app_id, 'classic'::text AS mode, fct_retention_cells.cohort_date,
    fct_retention_cells.network, fct_retention_cells.cohort_size, fct_retention_cells.day,
    fct_retention_cells.retained,
        CASE
            WHEN fct_retention_cells.cohort_size > 0 THEN fct_retention_cells.retained::double precision / fct_retention_cells.cohort_size::double precision
            ELSE NULL::double precision
        END AS rate
   FROM fct_retention_cells
UNION ALL
 SELECT c.app_id, 'rolling'::text AS mode, c.cohort_date, c.network, c.cohort_size, c.day,
    c.rolling AS retained,
        CASE
            WHEN c.cohort_size > 0 THEN c.rolling::double precision / c.cohort_size::double precision
            ELSE NULL::double precision
        END AS rate
   FROM ( SELECT fct_retention_cells.app_id, fct_retention_cells.cohort_date,
            fct_retention_cells.network, fct_retention_cells.cohort_size, fct_retention_cells.day,
            fct_retention_cells.cohort_size - COALESCE(sum(fct_retention_cells.last_active) OVER (PARTITION BY fct_retention_cells.app_id, fct_retention_cells.cohort_date, fct_retention_cells.network ORDER BY fct_retention_cells.day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0::bigint) AS rolling
           FROM fct_retention_cells) c;

CREATE OR REPLACE FUNCTION funnel.app_has_rows(raw_table text, app text, onboarding_step text DEFAULT NULL::text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'funnel', 'public'
AS $function$
begin
    case raw_table
        when 'raw_opens' then
            return exists (select 1 from raw_opens where app_id = app);
        when 'raw_steps' then
            return exists (select 1 from raw_steps where app_id = app and step = onboarding_step);
        when 'raw_purchases' then
            return exists (select 1 from raw_purchases where app_id = app);
    end case;
end
$function$
;

CREATE OR REPLACE FUNCTION funnel.cohort_day_number(event_at timestamp with time zone, installed_at timestamp with time zone, cohort_date date, time_zone text, day_rule text)
 RETURNS integer
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
    select case
        when day_rule = 'hours24' then floor(extract(epoch from (event_at - installed_at)) / 86400)::integer
        else (timezone(time_zone, event_at))::date - cohort_date
    end
$function$
;

CREATE OR REPLACE FUNCTION funnel.cohort_day_start(installed_at timestamp with time zone, day integer, time_zone text, day_rule text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
    select case
        when day_rule = 'hours24' then installed_at + day * interval '24 hours'
        else ((timezone(time_zone, installed_at))::date + day)::timestamp at time zone time_zone
    end
$function$
;

CREATE OR REPLACE FUNCTION funnel.currency_rates_fingerprint()
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
    select concat_ws('/',
        (select concat_ws(':', count(*), max(file_id), sum(usd_per_unit)) from raw_currency_rates),
        (select md5(coalesce(string_agg(currency || '=' || usd_per_unit::text, ',' order by currency), ''))
         from currency_rates))
$function$
;

CREATE OR REPLACE FUNCTION funnel.ensure_month_partitions(parent text, from_date date, to_date date)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
declare
    month_start date := date_trunc('month', from_date)::date;
    created integer := 0;
    partition_name text;
    is_timestamp boolean;
begin
    if parent not in ('raw_installs', 'raw_opens', 'raw_retention', 'raw_purchases',
                      'raw_invites', 'raw_ad_spend', 'raw_steps', 'raw_ux', 'raw_events') then
        raise exception 'ensure_month_partitions: % is not a raw table', parent;
    end if;
    is_timestamp := parent <> 'raw_ad_spend';
    while month_start <= to_date loop
        partition_name := parent || '_' || to_char(month_start, 'YYYY_MM');
        if to_regclass(format('%I.%I', current_schema(), partition_name)) is null then
            begin
                if is_timestamp then
                    execute format(
                        'create table %I partition of %I for values from (%L) to (%L)',
                        partition_name, parent,
                        (month_start::text || ' 00:00:00+00')::timestamptz,
                        ((month_start + interval '1 month')::date::text || ' 00:00:00+00')::timestamptz);
                else
                    execute format(
                        'create table %I partition of %I for values from (%L) to (%L)',
                        partition_name, parent, month_start, (month_start + interval '1 month')::date);
                end if;
                created := created + 1;
            exception when duplicate_table or unique_violation then
                null;
            end;
        end if;
        month_start := (month_start + interval '1 month')::date;
    end loop;
    return created;
end;
$function$
;

CREATE OR REPLACE FUNCTION funnel.friction_outcome_class(completed boolean, day1_to timestamp with time zone, returned_d1 boolean, data_through timestamp with time zone)
 RETURNS smallint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((CASE WHEN completed THEN 3 ELSE 0 END + CASE WHEN ((day1_to IS NULL) OR (data_through IS NULL) OR (day1_to > data_through)) THEN 0 WHEN returned_d1 THEN 2 ELSE 1 END))::smallint
;

CREATE OR REPLACE FUNCTION funnel.funnel_breakdown_steps(app text, from_date date, to_date date)
 RETURNS TABLE(app_id text, funnel text, property text, breakdown text, step_index integer, step text, users bigint, conversion_from_previous double precision, conversion_from_first double precision, median_seconds_to_convert double precision)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
begin
return query
with reached as materialized (
    select s.app_id, s.funnel, s.breakdown, s.step_index,
           date_part('epoch', s.reached_at - lag(s.reached_at) over (
               partition by s.app_id, s.user_id, s.funnel, s.breakdown order by s.step_index)) as seconds
    from int_user_funnel_breakdown_steps s
    where ($1::text is null or s.app_id = $1::text)
      and ($2::date is null and $3::date is null or exists (
          select 1 from int_user_facts f
          where f.app_id = s.app_id and f.user_id = s.user_id
            and ($2::date is null or f.cohort_date >= $2::date)
            and ($3::date is null or f.cohort_date <= $3::date)))
), counted as (
    select r.app_id, r.funnel, r.breakdown, r.step_index, count(*) as users,
           percentile_cont(0.5) within group (order by r.seconds) as median_seconds
    from reached r
    group by r.app_id, r.funnel, r.breakdown, r.step_index
), firsts as (
    select c.app_id, c.funnel, c.breakdown, c.users as first_users
    from counted c where c.step_index = 0
), stepped as (
    select g.app_id, g.funnel, g.breakdown, cf.step_index, cf.step, coalesce(c.users, 0) as users,
           lag(coalesce(c.users, 0)) over (
               partition by g.app_id, g.funnel, g.breakdown order by cf.step_index) as previous_users,
           g.first_users,
           case when cf.step_index > 0 then c.median_seconds end as median_seconds
    from firsts g
    join compute_funnels cf on cf.app_id = '' and cf.funnel = g.funnel
    left join counted c
      on c.app_id = g.app_id and c.funnel = g.funnel and c.breakdown is not distinct from g.breakdown
     and c.step_index = cf.step_index
)
select r.app_id, r.funnel, b.property, r.breakdown, r.step_index, r.step, r.users,
       case when r.previous_users > 0 then r.users::double precision / r.previous_users end,
       case when r.first_users > 0 then r.users::double precision / r.first_users end,
       r.median_seconds
from stepped r
join compute_funnel_breakdowns b on b.funnel = r.funnel;
end
$function$
;

CREATE OR REPLACE FUNCTION funnel.funnel_in_group(p_dim text, p_value text, network text, campaign text, country text, platform text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
select case $1 when 'all' then true
               when 'network' then $3 = $2
               when 'campaign' then $4 = $2
               when 'country' then $5 = $2
               when 'platform' then $6 = $2 end
$function$
;

CREATE OR REPLACE FUNCTION funnel.funnel_middle_values(p_app text, p_funnel text, p_step integer, p_dim text, p_value text, p_anchor double precision, p_below bigint, p_ties bigint, p_rank bigint, OUT anchor_seconds double precision, OUT anchor_below bigint, OUT anchor_ties bigint, OUT next_seconds double precision)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
AS $function$
declare
    v double precision := p_anchor;
    below bigint := coalesce(p_below, 0);
    ties bigint := coalesce(p_ties, 0);
begin
    if p_rank < 0 then
        return;
    end if;
    if v is null then
        v := funnel_value_after(p_app, p_funnel, p_step, p_dim, p_value, null);
        if v is null then
            return;
        end if;
        below := 0;
        ties := funnel_points_at(p_app, p_funnel, p_step, p_dim, p_value, v);
    end if;
    while v is not null and p_rank < below loop
        v := funnel_value_before(p_app, p_funnel, p_step, p_dim, p_value, v);
        ties := funnel_points_at(p_app, p_funnel, p_step, p_dim, p_value, v);
        below := below - ties;
    end loop;
    while v is not null and p_rank >= below + ties loop
        below := below + ties;
        v := funnel_value_after(p_app, p_funnel, p_step, p_dim, p_value, v);
        ties := funnel_points_at(p_app, p_funnel, p_step, p_dim, p_value, v);
    end loop;
    if v is null then
        raise exception 'int_funnel_medians disagrees with int_funnel_points for (%, %, %, %, %)',
            p_app, p_funnel, p_step, p_dim, p_value
            using hint = 'run funnel compute --full to rebuild them';
    end if;
    anchor_seconds := v;
    anchor_below := below;
    anchor_ties := ties;
    next_seconds := case when p_rank + 1 < below + ties then v
                         else funnel_value_after(p_app, p_funnel, p_step, p_dim, p_value, v) end;
end
$function$
;

CREATE OR REPLACE FUNCTION funnel.funnel_points_at(p_app text, p_funnel text, p_step integer, p_dim text, p_value text, p_seconds double precision)
 RETURNS bigint
 LANGUAGE sql
 STABLE
AS $function$
select count(*)
from int_funnel_points y
where y.app_id = p_app and y.funnel = p_funnel and y.step_index = p_step and y.seconds = p_seconds
  and funnel_in_group(p_dim, p_value, y.network, y.campaign, y.country, y.platform)
$function$
;

CREATE OR REPLACE FUNCTION funnel.funnel_steps(app text, from_date date, to_date date)
 RETURNS TABLE(app_id text, funnel text, network text, campaign text, country text, platform text, step_index integer, step text, users bigint, conversion_from_previous double precision, conversion_from_first double precision, median_seconds_to_convert double precision)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
begin
return query
with users as materialized (
    -- one narrow row per user, each step's seconds from the previous step, null when not reached
    -- (a step is only reached after the previous one, so a count of seconds counts the step).
    -- Materialized: on Citus the rows are gathered from the shards, then grouped
    select app_id, user_id, network, campaign, country, platform,
           date_part('epoch', funnel_open_at - installed_at) as s1,
           date_part('epoch', funnel_onboarded_at - funnel_open_at) as s2,
           date_part('epoch', funnel_regular_at - funnel_onboarded_at) as s3,
           date_part('epoch', funnel_purchase_at - funnel_regular_at) as s4
    from int_user_facts
    where ($1::text is null or app_id = $1::text)
      and ($2::date is null or cohort_date >= $2::date)
      and ($3::date is null or cohort_date <= $3::date)
), default_steps as (
    select app_id, coalesce(network, 'all') as network, coalesce(campaign, 'all') as campaign,
           coalesce(country, 'all') as country, coalesce(platform, 'all') as platform,
           count(*) as s0, count(s1) as s1, count(s2) as s2, count(s3) as s3, count(s4) as s4,
           percentile_cont(0.5) within group (order by s1) as m1,
           percentile_cont(0.5) within group (order by s2) as m2,
           percentile_cont(0.5) within group (order by s3) as m3,
           percentile_cont(0.5) within group (order by s4) as m4
    from users
    group by grouping sets ((app_id), (app_id, network), (app_id, campaign), (app_id, country), (app_id, platform))
), default_rows as (
    select d.app_id, 'default'::text as funnel, d.network, d.campaign, d.country, d.platform,
           v.step_index, v.users, v.previous_users, d.s0 as first_users, v.median_seconds
    from default_steps d
    cross join lateral (values
        (0, d.s0, null::bigint, null::double precision),
        (1, d.s1, d.s0, d.m1),
        (2, d.s2, d.s1, d.m2),
        (3, d.s3, d.s2, d.m3),
        (4, d.s4, d.s3, d.m4)) as v (step_index, users, previous_users, median_seconds)
), custom_seconds as materialized (
    select s.app_id, s.user_id, s.funnel, s.step_index,
           date_part('epoch', s.reached_at - lag(s.reached_at) over (
               partition by s.app_id, s.user_id, s.funnel order by s.step_index)) as seconds
    from int_user_funnel_steps s
    where ($1::text is null or s.app_id = $1::text)
), custom_steps as (
    select c.app_id, c.funnel, c.step_index, coalesce(f.network, 'all') as network,
           coalesce(f.campaign, 'all') as campaign, coalesce(f.country, 'all') as country,
           coalesce(f.platform, 'all') as platform, count(*) as users,
           percentile_cont(0.5) within group (order by c.seconds) as median_seconds
    from custom_seconds c
    join users f on f.app_id = c.app_id and f.user_id = c.user_id
    group by grouping sets ((c.app_id, c.funnel, c.step_index),
                            (c.app_id, c.funnel, c.step_index, f.network),
                            (c.app_id, c.funnel, c.step_index, f.campaign),
                            (c.app_id, c.funnel, c.step_index, f.country),
                            (c.app_id, c.funnel, c.step_index, f.platform))
), custom_groups as (
    select app_id, funnel, network, campaign, country, platform, users as first_users
    from custom_steps where step_index = 0
), custom_rows as (
    select g.app_id, g.funnel, g.network, g.campaign, g.country, g.platform, cf.step_index,
           coalesce(cs.users, 0) as users,
           lag(coalesce(cs.users, 0)) over (
               partition by g.app_id, g.funnel, g.network, g.campaign, g.country, g.platform
               order by cf.step_index) as previous_users,
           g.first_users,
           case when cf.step_index > 0 then cs.median_seconds end as median_seconds
    from custom_groups g
    join compute_funnels cf on cf.app_id = '' and cf.funnel = g.funnel
    left join custom_steps cs
      on cs.app_id = g.app_id and cs.funnel = g.funnel and cs.step_index = cf.step_index
     and cs.network = g.network and cs.campaign = g.campaign and cs.country = g.country
     and cs.platform = g.platform
), all_rows as (
    select * from default_rows
    union all
    select * from custom_rows
)
select r.app_id, r.funnel, r.network, r.campaign, r.country, r.platform, r.step_index, cf.step, r.users,
       case when r.previous_users > 0 then r.users::double precision / r.previous_users end,
       case when r.first_users > 0 then r.users::double precision / r.first_users end,
       r.median_seconds
from all_rows r
join compute_funnels cf on cf.app_id = '' and cf.funnel = r.funnel and cf.step_index = r.step_index;
end
$function$
;

CREATE OR REPLACE FUNCTION funnel.funnel_value_after(p_app text, p_funnel text, p_step integer, p_dim text, p_value text, p_seconds double precision)
 RETURNS double precision
 LANGUAGE sql
 STABLE
AS $function$
select y.seconds
from int_funnel_points y
where y.app_id = p_app and y.funnel = p_funnel and y.step_index = p_step
  and y.seconds > coalesce(p_seconds, '-infinity')
  and funnel_in_group(p_dim, p_value, y.network, y.campaign, y.country, y.platform)
order by y.seconds
limit 1
$function$
;

CREATE OR REPLACE FUNCTION funnel.funnel_value_before(p_app text, p_funnel text, p_step integer, p_dim text, p_value text, p_seconds double precision)
 RETURNS double precision
 LANGUAGE sql
 STABLE
AS $function$
select y.seconds
from int_funnel_points y
where y.app_id = p_app and y.funnel = p_funnel and y.step_index = p_step and y.seconds < p_seconds
  and funnel_in_group(p_dim, p_value, y.network, y.campaign, y.country, y.platform)
order by y.seconds desc
limit 1
$function$
;

CREATE OR REPLACE FUNCTION funnel.merge_day_lists(known integer[], added integer[])
 RETURNS integer[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN (cardinality(added) = 0) THEN known WHEN (cardinality(known) = 0) THEN added WHEN ((known)[cardinality(known)] < (added)[1]) THEN (known || added) ELSE ARRAY(SELECT DISTINCT d.d FROM unnest((merge_day_lists.known || merge_day_lists.added)) d(d) ORDER BY d.d) END
;

CREATE OR REPLACE FUNCTION funnel.merge_time_lists(known timestamp with time zone[], added timestamp with time zone[])
 RETURNS timestamp with time zone[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN (cardinality(added) = 0) THEN known WHEN (cardinality(known) = 0) THEN added WHEN ((known)[cardinality(known)] <= (added)[1]) THEN (known || added) ELSE ARRAY(SELECT t.t FROM unnest((merge_time_lists.known || merge_time_lists.added)) t(t) ORDER BY t.t) END
;

CREATE OR REPLACE FUNCTION funnel.try_numeric(value text)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
    select case when value ~ '^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]{1,3})?\s*$'
                then value::numeric end
$function$
;
