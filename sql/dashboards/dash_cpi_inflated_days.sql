-- dash_cpi_inflated_days: the inflated (peak) days of each paid network, dearest excess first.
-- Grain: one row per (app_id, network, date). Reads: fct_cpi_inflated_days.
-- Columns: app_id, network, date, spend, paid_installs, cpi, expected_cpi, robust_z, excess_cost.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_cpi_inflated_days as
select d.app_id, d.network, d.date, d.spend, d.paid_installs, d.cpi, d.expected_cpi, d.robust_z, d.excess_cost
from fct_cpi_inflated_days d
order by d.excess_cost desc;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_cpi_inflated_days to funnel_dashboard', current_schema());
    end if;
end
$$;
