-- 0071_dash_ltv_chained: dash_ltv_cpi gains the chained observed LTV (the pooled curve that cannot
-- fall, migration 0070) and whether enough installs back the day for a chart, so dashboards draw
-- the same curve as the reports. Columns are added at the end: panels reading the others keep
-- working. The view keeps its grant to funnel_dashboard (create or replace keeps privileges).
-- Grain: one row per (app_id, network, day, projected). Reads: fct_ltv, fct_networks.
create or replace view dash_ltv_cpi as
select l.app_id, l.network, l.day, l.projected, l.installs, l.revenue, l.ltv, l.ltv_low, l.ltv_high,
       n.cpi,
       case when n.cpi > 0 then (l.ltv / n.cpi)::double precision end as ltv_over_cpi,
       l.roas,
       l.ltv_chained,
       l.shown
from fct_ltv l
left join fct_networks n on n.app_id = l.app_id and n.network = l.network;
