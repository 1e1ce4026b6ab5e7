-- dash_ltv_cpi: the LTV curve (observed and projected) beside the network's CPI, with the chained
-- observed LTV (the pooled curve that cannot fall) and whether enough installs back the day for a
-- chart, so dashboards draw the reports' curve. ltv_over_cpi is a ratio (double precision, NULL
-- without a CPI); money is numeric USD.
-- Grain: one row per (app_id, network, day, projected). Reads: fct_ltv, fct_networks.
-- Columns: app_id, network, day, projected, installs, revenue, ltv, ltv_low, ltv_high, cpi,
-- ltv_over_cpi, roas, ltv_chained, shown.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_ltv_cpi as
select l.app_id, l.network, l.day, l.projected, l.installs, l.revenue, l.ltv, l.ltv_low, l.ltv_high,
       n.cpi,
       case when n.cpi > 0 then (l.ltv / n.cpi)::double precision end as ltv_over_cpi,
       l.roas,
       l.ltv_chained,
       l.shown
from fct_ltv l
left join fct_networks n on n.app_id = l.app_id and n.network = l.network;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_ltv_cpi to funnel_dashboard', current_schema());
    end if;
end
$$;
