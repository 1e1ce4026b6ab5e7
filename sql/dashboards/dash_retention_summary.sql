-- dash_retention_summary: D1/D3/D7/D14/D30 over the cohorts mature for that day.
-- Grain: one row per (app_id, mode, network, day). Reads: fct_retention_summary.
-- Columns: app_id, mode, network, day, cohorts, cohort_size, retained, rate.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_retention_summary as
select s.app_id, s.mode, s.network, s.day, s.cohorts, s.cohort_size, s.retained, s.rate
from fct_retention_summary s;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_retention_summary to funnel_dashboard', current_schema());
    end if;
end
$$;
