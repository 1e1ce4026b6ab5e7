-- plan: the budget plan for today's total daily spend of one app, as compute wrote it: per paid
-- network today's and the planned daily spend, installs, CPI, revenue and ROAS at the horizon
-- with their intervals, the marginal return and a note; the total ('all') last.
-- Grain: one row per network. Reads: fct_plan.
select network, horizon_day, budget, status, today_spend, planned_spend, installs, installs_low, installs_high,
       cpi, revenue, revenue_low, revenue_high, roas, roas_low, roas_high, marginal_return, note
from fct_plan
where app_id = $1
order by network = 'all', planned_spend desc, network;
