-- dash_retention: the retention triangle, mature cells only (a missing cell is immature), classic
-- and rolling; `time` is midnight UTC of the cohort day.
-- Grain: one row per (app_id, mode, cohort_date, network, day). Reads: fct_retention (a view over
-- fct_retention_cells).
-- Columns: time, app_id, mode (classic/rolling), cohort_date, network, cohort_size, day, retained,
-- rate.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_retention as
select (r.cohort_date::timestamp at time zone 'UTC') as time,
       r.app_id, r.mode, r.cohort_date, r.network, r.cohort_size, r.day, r.retained, r.rate
from fct_retention r;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_retention to funnel_dashboard', current_schema());
    end if;
end
$$;
