-- dash_cpi_weekday: CPI by day of week (1 = Monday, ISO) per paid network over its whole history:
-- spend / paid installs of that weekday, and its index against the network's overall CPI.
-- Grain: one row per (app_id, network, weekday). Reads: fct_cpi (its per-network day rows).
-- Columns: app_id, network, weekday, days, spend, paid_installs, cpi, cpi_index.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_cpi_weekday as
with days as (
    select c.app_id, c.network, extract(isodow from c.date)::integer as weekday, c.spend, c.paid_installs
    from fct_cpi c
    where c.campaign = 'all' and c.country = 'all' and c.network <> 'all' and c.spend > 0
), weekdays as (
    select app_id, network, weekday, count(*) as days, sum(spend) as spend, sum(paid_installs) as paid_installs
    from days group by app_id, network, weekday
), overall as (
    select app_id, network, sum(spend) / nullif(sum(paid_installs), 0) as cpi
    from days group by app_id, network
)
select w.app_id, w.network, w.weekday, w.days, w.spend, w.paid_installs,
       w.spend / nullif(w.paid_installs, 0) as cpi,
       (w.spend / nullif(w.paid_installs, 0) / nullif(o.cpi, 0))::double precision as cpi_index
from weekdays w join overall o on o.app_id = w.app_id and o.network = w.network;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_cpi_weekday to funnel_dashboard', current_schema());
    end if;
end
$$;
