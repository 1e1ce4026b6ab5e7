-- dash_networks: one verdict line per network (scale / hold / trim / cut, and why).
-- Grain: one row per (app_id, network). Reads: fct_networks, fct_revenue.
-- Columns: app_id, network, installs, paid_installs, spend, cpi, ltv_d7, ltv_d30,
-- ltv_projected_d180, ltv_d180_low, ltv_d180_high, roas_d7, roas_d30, payback_day, payback_basis,
-- k_factor, verdict, reason, gross_revenue, refunded, net_revenue (days 0 to max_day, USD x revenue
-- share: purchases, refunds as the amount refunded, and purchases less refunds; docs/metrics.md).
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
-- The revenue columns are scalar subqueries, not a join: the view stays a simple one over
-- fct_networks, whose writes the dashboard role is refused for want of the privilege.
create or replace view dash_networks as
select n.app_id, n.network, n.installs, n.paid_installs, n.spend, n.cpi, n.ltv_d7, n.ltv_d30,
       n.ltv_projected_d180, n.ltv_d180_low, n.ltv_d180_high, n.roas_d7, n.roas_d30, n.payback_day,
       n.payback_basis, n.k_factor, n.verdict, n.reason,
       coalesce((select r.gross_revenue from fct_revenue r where r.app_id = n.app_id and r.network = n.network), 0)
           as gross_revenue,
       coalesce((select r.refunded from fct_revenue r where r.app_id = n.app_id and r.network = n.network), 0)
           as refunded,
       coalesce((select r.net_revenue from fct_revenue r where r.app_id = n.app_id and r.network = n.network), 0)
           as net_revenue
from fct_networks n;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_networks to funnel_dashboard', current_schema());
    end if;
end
$$;
