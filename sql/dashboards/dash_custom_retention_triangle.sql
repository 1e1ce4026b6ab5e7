-- dash_custom_retention_triangle: each configured retention's triangle by network, with `time`
-- (midnight UTC of the cohort's first date) and the classic and rolling rates.
-- Grain: one row per (app_id, retention, network, cohort_date, period). Reads: fct_custom_retention.
-- Columns: time, app_id, retention, network, cohort_date, period, cohort_size, retained, rate,
-- rolling_retained, rolling_rate.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_custom_retention_triangle as
select (t.cohort_date::timestamp at time zone 'UTC') as time, t.app_id, t.retention, t.network, t.cohort_date,
       t.period, t.cohort_size, t.retained,
       case when t.cohort_size > 0 then t.retained::double precision / t.cohort_size end as rate,
       t.rolling_retained,
       case when t.cohort_size > 0 then t.rolling_retained::double precision / t.cohort_size end as rolling_rate
from fct_custom_retention t;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_custom_retention_triangle to funnel_dashboard', current_schema());
    end if;
end
$$;
