-- dash_funnel_breakdown: configured funnels broken down by a property, every computed cohort;
-- breakdown is the property's value, null for users without it.
-- Grain: one row per (app_id, funnel, breakdown, step_index). Reads: fct_funnel_breakdown.
-- Columns: app_id, funnel, property, breakdown, step_index, step, users, conversion_from_previous,
-- conversion_from_first, median_seconds_to_convert.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_funnel_breakdown as
select f.app_id, f.funnel, f.property, f.breakdown, f.step_index, f.step, f.users, f.conversion_from_previous,
       f.conversion_from_first, f.median_seconds_to_convert
from fct_funnel_breakdown f;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_funnel_breakdown to funnel_dashboard', current_schema());
    end if;
end
$$;
