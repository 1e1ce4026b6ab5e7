-- 0090_custom_retention: retention definitions of the configuration ([[retention]] in
-- funnel.toml, docs/retention.md): each user's cohorts, the marts counted from them and the
-- dash_* views Grafana reads. Reads: nothing (tables and views over them).

-- int_user_retention: the cohorts each user belongs to in each configured retention: the
-- cohort's period (days since 1970, Sunday weeks or year * 12 + month - 1 in the reporting time
-- zone; under the 24-hour rule the start event's date) and the later periods (1, 2, ...) in which
-- they came back. The marts take the user's network from int_user_facts.
-- Grain: one row per (app_id, retention, user_id, cohort_period).
create table int_user_retention (
    app_id        text      not null,
    retention     text      not null,
    user_id       text      not null,
    cohort_period integer   not null,
    returned      integer[] not null,
    primary key (app_id, retention, user_id, cohort_period)
);

-- fct_custom_retention: the mature cells of each configured retention's triangle, per network
-- and for 'all': the cohort's size, the users back in the period (classic) and those back in it
-- or later (rolling). Immature cells have no row.
-- Grain: one row per (app_id, retention, network, cohort_date, period).
create table fct_custom_retention (
    app_id           text    not null,
    retention        text    not null,
    network          text    not null,
    cohort_date      date    not null,
    period           integer not null,
    cohort_size      integer not null,
    retained         integer not null,
    rolling_retained integer not null,
    primary key (app_id, retention, network, cohort_date, period)
);

-- fct_custom_retention_summary: per configured retention and network ('all' too), classic and
-- rolling retention per period pooled over the cohorts mature for it, and bracket retention
-- over the cohorts for which the whole bracket is mature (measure 'bracket', periods
-- first_period..last_period). rate is NULL when no cohort is mature.
-- Grain: one row per (app_id, retention, network, measure, first_period, last_period).
create table fct_custom_retention_summary (
    app_id       text             not null,
    retention    text             not null,
    network      text             not null,
    measure      text             not null check (measure in ('classic', 'rolling', 'bracket')),
    first_period integer          not null,
    last_period  integer          not null,
    cohorts      integer          not null,
    cohort_size  integer          not null,
    retained     integer          not null,
    rate         double precision,
    primary key (app_id, retention, network, measure, first_period, last_period)
);

-- dash_custom_retention: the summary of each configured retention by network, classic and
-- rolling per period and the brackets.
-- Columns: app_id, retention, network, measure, first_period, last_period, cohorts, cohort_size,
-- retained, rate.
create view dash_custom_retention as
select s.app_id, s.retention, s.network, s.measure, s.first_period, s.last_period, s.cohorts,
       s.cohort_size, s.retained, s.rate
from fct_custom_retention_summary s;

-- dash_custom_retention_triangle: each configured retention's triangle by network, with `time`
-- (midnight UTC of the cohort's first date) and the classic and rolling rates.
-- Columns: time, app_id, retention, network, cohort_date, period, cohort_size, retained, rate,
-- rolling_retained, rolling_rate.
create view dash_custom_retention_triangle as
select (t.cohort_date::timestamp at time zone 'UTC') as time, t.app_id, t.retention, t.network, t.cohort_date,
       t.period, t.cohort_size, t.retained,
       case when t.cohort_size > 0 then t.retained::double precision / t.cohort_size end as rate,
       t.rolling_retained,
       case when t.cohort_size > 0 then t.rolling_retained::double precision / t.cohort_size end as rolling_rate
from fct_custom_retention t;

do $$
begin
    execute format('grant select on %I.dash_custom_retention, %I.dash_custom_retention_triangle to funnel_dashboard',
                   current_schema(), current_schema());
end
$$;
