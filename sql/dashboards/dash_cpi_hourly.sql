-- dash_cpi_hourly: CPI by hour of day per paid network, where the ad spend input carries hours.
-- Grain: one row per (app_id, network, hour). Reads: fct_cpi_hourly.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_cpi_hourly as
select h.app_id, h.network, h.hour, h.days, h.spend, h.paid_installs, h.cpi, h.cpi_index
from fct_cpi_hourly h;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_cpi_hourly to funnel_dashboard', current_schema());
    end if;
end
$$;
