-- dash_campaigns: money per network, campaign and campaign and country as compute writes it
-- (fct_campaigns, docs/metrics.md "Money by campaign"): spend, installs, paid installs, CPI
-- (null for unpaid traffic, never $0.00), chained LTV and ROAS on days 7, 30 and 90, the
-- campaign's LTV_D7 own and pooled toward its network with the weight of its own data, the
-- projected LTV_D180 with its interval and ROAS, payback and the verdict. level says which row:
-- 'network' (campaign and country 'all'), 'campaign' (country 'all') or 'country'.
-- Grain: one row per (app_id, network, campaign, country). Reads: fct_campaigns.
-- Columns: app_id, level, network, campaign, country, cohorts, installs, paid_installs, payers,
-- spend, cpi, ltv_d7, ltv_d30, ltv_d90, roas_d7, roas_d30, roas_d90, observed_ltv_d7,
-- pooled_ltv_d7, pooling_weight, ltv_projected_d180, ltv_d180_low, ltv_d180_high,
-- roas_projected_d180, payback_day, payback_basis, verdict, reason.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_campaigns as
select k.app_id,
       case when k.campaign = 'all' then 'network' when k.country = 'all' then 'campaign' else 'country' end as level,
       k.network, k.campaign, k.country, k.cohorts, k.installs, k.paid_installs, k.payers, k.spend,
       case when k.spend > 0 then k.cpi end as cpi,
       k.ltv_d7, k.ltv_d30, k.ltv_d90, k.roas_d7, k.roas_d30, k.roas_d90, k.observed_ltv_d7, k.pooled_ltv_d7,
       k.pooling_weight, k.ltv_projected_d180, k.ltv_d180_low, k.ltv_d180_high, k.roas_projected_d180,
       k.payback_day, k.payback_basis, k.verdict, k.reason
from fct_campaigns k;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_campaigns to funnel_dashboard', current_schema());
    end if;
end
$$;
