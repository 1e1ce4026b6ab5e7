-- dash_funnel: the per-user funnel by network (country = 'all') and by country (network =
-- 'all'); the row with both 'all' is the whole app. Campaign and platform are 'all'.
-- Grain: one row per (app_id, funnel, network, country, step_index). Reads: fct_funnel.
-- Columns: app_id, funnel, network, country, step_index, step, users, conversion_from_previous,
-- conversion_from_first, median_seconds_to_convert.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_funnel as
select f.app_id, f.funnel, f.network, f.country, f.step_index, f.step, f.users,
       f.conversion_from_previous, f.conversion_from_first, f.median_seconds_to_convert
from fct_funnel f
where f.campaign = 'all' and f.platform = 'all'
  and (f.network = 'all' or f.country = 'all');

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_funnel to funnel_dashboard', current_schema());
    end if;
end
$$;
