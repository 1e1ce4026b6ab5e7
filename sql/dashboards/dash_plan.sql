-- dash_plan: the budget plan for today's total daily spend as compute writes it (fct_plan,
-- docs/metrics.md "Budget plan"): per paid network today's spend and the planned one, the
-- installs, CPI, revenue and ROAS at the horizon expected at the plan with their intervals, and
-- the marginal return; network 'all' is the total.
-- Grain: one row per (app_id, network). Reads: fct_plan.
-- Columns: app_id, network, horizon_day, budget, status, today_spend, planned_spend, change,
-- installs, installs_low, installs_high, cpi, revenue, revenue_low, revenue_high, roas, roas_low,
-- roas_high, marginal_return, note.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_plan as
select p.app_id, p.network, p.horizon_day, p.budget, p.status, p.today_spend, p.planned_spend,
       case when p.today_spend > 0 then p.planned_spend / p.today_spend - 1 end as change,
       p.installs, p.installs_low, p.installs_high, p.cpi, p.revenue, p.revenue_low, p.revenue_high,
       p.roas, p.roas_low, p.roas_high, p.marginal_return, p.note
from fct_plan p;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_plan to funnel_dashboard', current_schema());
    end if;
end
$$;
