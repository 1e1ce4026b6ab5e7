-- dash_trends: the configured trends ([[trends]], docs/insights.md) per series, breakdown value
-- and interval, as compute counted them (fct_insights). interval_start is in the reporting time
-- zone (a timestamp without zone); breakdown '' means no breakdown or no value.
-- Grain: one row per (app_id, trend, line_index, interval_start). Reads: fct_insights.
-- Columns: app_id, trend, line_index, series, breakdown, interval_start, value.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_trends as
select i.app_id, i.name as trend, i.line_index, i.line as series, i.breakdown, i.interval_start, i.value
from fct_insights i
where i.insight = 'trends';

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_trends to funnel_dashboard', current_schema());
    end if;
end
$$;
