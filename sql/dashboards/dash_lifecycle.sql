-- dash_lifecycle: the configured lifecycles ([[lifecycle]], docs/insights.md) per status (new,
-- returning, resurrecting, dormant) and interval, as compute counted them (fct_insights);
-- dormant users are negative, as PostHog shows them. interval_start is in the reporting time zone.
-- Grain: one row per (app_id, lifecycle, status, interval_start). Reads: fct_insights.
-- Columns: app_id, lifecycle, status, interval_start, users.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_lifecycle as
select i.app_id, i.name as lifecycle, i.line as status, i.interval_start, i.value::bigint as users
from fct_insights i
where i.insight = 'lifecycle';

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_lifecycle to funnel_dashboard', current_schema());
    end if;
end
$$;
