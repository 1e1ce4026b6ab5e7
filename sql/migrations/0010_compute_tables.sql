-- 0010_compute_tables: the tables incremental compute writes: settings and bookkeeping, the
-- per-user facts, the cohort rollups and the marts the reports and dashboards read.
-- Grain: stated per table below. Reads: nothing (compute writes these).
--
-- Rollups are keyed by (app_id, cohort_date, ...) so compute can delete and rebuild exactly the
-- cohort days that new data touched. Marts are small and rebuilt from the rollups on every run.
-- Text dimensions that may be absent (campaign, country, platform) are stored as '' so they can
-- be key columns.

-- compute_settings: the configuration in force for the current run, written by compute in the
-- same transaction as the rebuild, so the SQL reads settings instead of taking dozens of
-- parameters. Grain: one row per app_id ('' = every app).
create table compute_settings (
    app_id               text    primary key,
    time_zone            text    not null,
    day_rule             text    not null check (day_rule in ('calendar', 'hours24')),
    onboarding_step      text    not null,
    window_days          integer not null,
    purchase_window_days integer not null,
    regular_opens        integer not null,
    regular_days         integer not null,
    revenue_share        numeric not null,
    kfactor_window_days  integer not null,
    max_day              integer not null,
    brackets             int4range[] not null,
    double_down_ratio    numeric not null,
    cut_ratio            numeric not null,
    config_fingerprint   text    not null
);

-- compute_state: what the last run covered, per app. Grain: one row per app_id.
create table compute_state (
    app_id             text        primary key,
    data_through_date  date        not null,
    config_fingerprint text        not null,
    computed_at        timestamptz not null default now()
);

-- compute_runs: one row per finished compute run (the log a cron owner reads).
create table compute_runs (
    run_id            bigserial   primary key,
    mode              text        not null check (mode in ('full', 'incremental')),
    cohort_days       integer     not null,
    users             bigint      not null,
    started_at        timestamptz not null,
    finished_at       timestamptz not null default now()
);

-- int_user_facts: everything compute knows about one user. Grain: one row per (app_id, user_id).
create table int_user_facts (
    app_id               text        not null,
    user_id              text        not null,
    cohort_date          date        not null,
    installed_at         timestamptz not null,
    network              text        not null,
    campaign             text        not null,
    country              text        not null,
    platform             text        not null,
    acquisition          text        not null check (acquisition in ('paid', 'organic', 'viral')),
    installs             integer     not null,
    referrer_user_id     text,
    invite_id            text,
    first_open_at        timestamptz,
    onboarded_at         timestamptz,
    first_purchase_at    timestamptz,
    first_purchase_day   integer,
    regular_opens        integer     not null,
    regular_at           timestamptz,
    funnel_open_at       timestamptz,
    funnel_onboarded_at  timestamptz,
    funnel_regular_at    timestamptz,
    funnel_purchase_at   timestamptz,
    invites_sent         integer     not null,
    last_active_day      integer     not null,
    inviter_user_id      text,
    inviter_network      text,
    inviter_cohort_date  date,
    inviter_installed_at timestamptz,
    counts_for_kfactor   boolean     not null default false,
    primary key (app_id, user_id)
);
create index int_user_facts_by_cohort on int_user_facts (app_id, cohort_date);

-- int_user_funnel_steps: the steps each user reached in each user-defined funnel of the config.
-- Grain: one row per (app_id, user_id, funnel, step_index).
create table int_user_funnel_steps (
    app_id      text        not null,
    user_id     text        not null,
    funnel      text        not null,
    step_index  integer     not null,
    reached_at  timestamptz not null,
    primary key (app_id, user_id, funnel, step_index)
);

-- int_cohort_rollup: installs and per-user milestones of a cohort slice.
-- Grain: one row per (app_id, cohort_date, network, campaign, country, platform).
create table int_cohort_rollup (
    app_id             text    not null,
    cohort_date        date    not null,
    network            text    not null,
    campaign           text    not null,
    country            text    not null,
    platform           text    not null,
    installs           integer not null,
    paid_installs      integer not null,
    organic_installs   integer not null,
    viral_installs     integer not null,
    reinstalls         integer not null,
    openers            integer not null,
    onboarded          integer not null,
    regular_users      integer not null,
    payers             integer not null,
    funnel_open        integer not null,
    funnel_onboarded   integer not null,
    funnel_regular     integer not null,
    funnel_purchase    integer not null,
    invites_sent       integer not null,
    primary key (app_id, cohort_date, network, campaign, country, platform)
);

-- int_cohort_day_rollup: activity and revenue of a cohort slice on day N after install; sparse
-- (a missing row is zero for a mature day). last_active_users counts users whose last active
-- day is N, from which rolling retention (active on N or later) is a reverse running sum.
-- Grain: one row per (app_id, cohort_date, network, campaign, country, platform, day_n).
create table int_cohort_day_rollup (
    app_id            text          not null,
    cohort_date       date          not null,
    network           text          not null,
    campaign          text          not null,
    country           text          not null,
    platform          text          not null,
    day_n             integer       not null,
    active_users      integer       not null,
    last_active_users integer       not null,
    revenue_usd       numeric(20,6) not null,
    payers            integer       not null,
    new_payers        integer       not null,
    primary key (app_id, cohort_date, network, campaign, country, platform, day_n)
);

-- int_cohort_bracket_rollup: users active at least once within each configured day bracket.
-- Grain: one row per (app_id, cohort_date, network, campaign, country, platform, bracket_index).
create table int_cohort_bracket_rollup (
    app_id        text    not null,
    cohort_date   date    not null,
    network       text    not null,
    campaign      text    not null,
    country       text    not null,
    platform      text    not null,
    bracket_index integer not null,
    active_users  integer not null,
    primary key (app_id, cohort_date, network, campaign, country, platform, bracket_index)
);

-- int_spend_day_rollup: ad spend in USD with impressions and clicks.
-- Grain: one row per (app_id, spend_date, network, campaign, country).
create table int_spend_day_rollup (
    app_id      text          not null,
    spend_date  date          not null,
    network     text          not null,
    campaign    text          not null,
    country     text          not null,
    spend_usd   numeric(20,6) not null,
    impressions bigint        not null,
    clicks      bigint        not null,
    primary key (app_id, spend_date, network, campaign, country)
);

-- compute_funnels: the step labels of the funnels in force (the default funnel and the
-- user-defined ones of the config), written by compute with the settings.
-- Grain: one row per (app_id, funnel, step_index).
create table compute_funnels (
    app_id     text    not null,
    funnel     text    not null,
    step_index integer not null,
    step       text    not null,
    primary key (app_id, funnel, step_index)
);
