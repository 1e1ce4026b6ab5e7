-- dash_custom_retention: the summary of each configured retention by network, classic and
-- rolling per period and the brackets.
-- Grain: one row per (app_id, retention, network, measure, first_period, last_period).
-- Reads: fct_custom_retention_summary.
-- Columns: app_id, retention, network, measure, first_period, last_period, cohorts, cohort_size,
-- retained, rate.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_custom_retention as
select s.app_id, s.retention, s.network, s.measure, s.first_period, s.last_period, s.cohorts,
       s.cohort_size, s.retained, s.rate
from fct_custom_retention_summary s;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_custom_retention to funnel_dashboard', current_schema());
    end if;
end
$$;
