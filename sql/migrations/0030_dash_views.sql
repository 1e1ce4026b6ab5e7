-- 0030_dash_views: the stable dash_* views Grafana reads. They read marts (fct_*) only, rename
-- nothing the reports rely on, and add a `time` column (timestamptz, midnight UTC of the row's
-- date) where a panel plots over time. Rates are fractions 0..1; money is USD; an immature or
-- undefined value is NULL. Columns are documented per view below and in dashboards/README.md;
-- they are a contract: add columns in a new migration, never rename or drop one.
-- Reads: fct_cpi, fct_funnel, fct_retention, fct_retention_summary, fct_ltv, fct_networks,
-- fct_kfactor.

-- dash_acquisition: spend and installs per day, network, campaign and country (the detail rows
-- of fct_cpi, without its per-network and per-day total rows, so panels can sum freely).
-- Grain: one row per (app_id, date, network, campaign, country).
-- Columns: time, app_id, date, network, campaign, country, spend, impressions, clicks, installs,
-- paid_installs, cpi, blended_cpi, ctr, ipm.
create view dash_acquisition as
select (c.date::timestamp at time zone 'UTC') as time,
       c.app_id, c.date, c.network, c.campaign, c.country,
       c.spend, c.impressions, c.clicks, c.installs, c.paid_installs,
       c.cpi, c.blended_cpi, c.ctr, c.ipm
from fct_cpi c
where c.network <> 'all'
  and not (c.campaign = 'all' and c.country = 'all');

-- dash_funnel: the per-user funnel by network (country = 'all') and by country
-- (network = 'all'); the row with both 'all' is the whole app. Campaign and platform are 'all'.
-- Grain: one row per (app_id, funnel, network, country, step_index).
-- Columns: app_id, funnel, network, country, step_index, step, users, conversion_from_previous,
-- conversion_from_first, median_seconds_to_convert.
create view dash_funnel as
select f.app_id, f.funnel, f.network, f.country, f.step_index, f.step, f.users,
       f.conversion_from_previous, f.conversion_from_first, f.median_seconds_to_convert
from fct_funnel f
where f.campaign = 'all' and f.platform = 'all'
  and (f.network = 'all' or f.country = 'all');

-- dash_retention: the retention triangle, mature cells only (a missing cell is immature).
-- Grain: one row per (app_id, mode, cohort_date, network, day).
-- Columns: time (cohort day), app_id, mode (classic/rolling), cohort_date, network, cohort_size,
-- day, retained, rate.
create view dash_retention as
select (r.cohort_date::timestamp at time zone 'UTC') as time,
       r.app_id, r.mode, r.cohort_date, r.network, r.cohort_size, r.day, r.retained, r.rate
from fct_retention r;

-- dash_retention_summary: D1/D3/D7/D14/D30 over the cohorts mature for that day.
-- Grain: one row per (app_id, mode, network, day).
-- Columns: app_id, mode, network, day, cohorts, cohort_size, retained, rate.
create view dash_retention_summary as
select s.app_id, s.mode, s.network, s.day, s.cohorts, s.cohort_size, s.retained, s.rate
from fct_retention_summary s;

-- dash_ltv_cpi: the LTV curve (observed and projected) beside the network's CPI.
-- Grain: one row per (app_id, network, day, projected).
-- Columns: app_id, network, day, projected, installs, revenue, ltv, ltv_low, ltv_high, cpi,
-- ltv_over_cpi (NULL without a CPI), roas.
create view dash_ltv_cpi as
select l.app_id, l.network, l.day, l.projected, l.installs, l.revenue, l.ltv, l.ltv_low, l.ltv_high,
       n.cpi,
       case when n.cpi > 0 then l.ltv / n.cpi end as ltv_over_cpi,
       l.roas
from fct_ltv l
left join fct_networks n on n.app_id = l.app_id and n.network = l.network;

-- dash_networks: one verdict line per network (double down / hold / cut, and why).
-- Grain: one row per (app_id, network).
-- Columns: app_id, network, installs, paid_installs, spend, cpi, ltv_d7, ltv_d30,
-- ltv_projected_d180, ltv_d180_low, ltv_d180_high, roas_d7, roas_d30, payback_day, payback_basis,
-- k_factor, verdict, reason.
create view dash_networks as
select n.app_id, n.network, n.installs, n.paid_installs, n.spend, n.cpi, n.ltv_d7, n.ltv_d30,
       n.ltv_projected_d180, n.ltv_d180_low, n.ltv_d180_high, n.roas_d7, n.roas_d30, n.payback_day,
       n.payback_basis, n.k_factor, n.verdict, n.reason
from fct_networks n;

-- dash_kfactor: the invite program per inviters' network ('all' = every network).
-- Grain: one row per (app_id, network).
-- Columns: app_id, network, cohort_size, invites_sent, viral_installs, invites_per_user,
-- invite_conversion, k_factor, cycle_time_hours, amplification, cpi, viral_adjusted_cpi.
create view dash_kfactor as
select k.app_id, k.network, k.cohort_size, k.invites_sent, k.viral_installs, k.invites_per_user,
       k.invite_conversion, k.k_factor, k.cycle_time_hours, k.amplification, k.cpi, k.viral_adjusted_cpi
from fct_kfactor k;
