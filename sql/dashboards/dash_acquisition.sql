-- dash_acquisition: spend and installs per day, network, campaign and country for Grafana (the
-- detail rows of fct_cpi, without its per-network and per-day total rows, so panels can sum
-- freely); `time` is midnight UTC of the date. Money is USD.
-- Grain: one row per (app_id, date, network, campaign, country). Reads: fct_cpi.
-- Columns: time, app_id, date, network, campaign, country, spend, impressions, clicks, installs,
-- paid_installs, cpi, blended_cpi, ctr, ipm.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_acquisition as
select (c.date::timestamp at time zone 'UTC') as time,
       c.app_id, c.date, c.network, c.campaign, c.country,
       c.spend, c.impressions, c.clicks, c.installs, c.paid_installs,
       c.cpi, c.blended_cpi, c.ctr, c.ipm
from fct_cpi c
where c.network <> 'all'
  and not (c.campaign = 'all' and c.country = 'all');

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_acquisition to funnel_dashboard', current_schema());
    end if;
end
$$;
