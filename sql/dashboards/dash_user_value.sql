-- dash_user_value: each buyer's expected value from the per-user purchase models, for panels of
-- the most valuable buyers and of valuable buyers who have gone quiet (low p_alive).
-- Grain: one row per (app_id, user_id) with a purchase day. Reads: fct_user_value.
-- Per user: read by funnel_dashboard_users only (migration 0145), never by funnel_dashboard,
-- which sees aggregates only.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the statements below cover a new database
-- and one where an earlier version of this file granted funnel_dashboard).
create or replace view dash_user_value as
select v.app_id, v.user_id, v.network, v.cohort_date, v.purchase_days, v.last_purchase_day, v.age_days,
       v.revenue, v.p_alive, v.horizon, v.expected_purchases, v.expected_spend, v.expected_revenue,
       v.revenue + v.expected_revenue as expected_value_at_horizon, v.data_through
from fct_user_value v;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('revoke all on %I.dash_user_value from funnel_dashboard', current_schema());
    end if;
    if exists (select from pg_roles where rolname = 'funnel_dashboard_users') then
        execute format('grant select on %I.dash_user_value to funnel_dashboard_users', current_schema());
    end if;
end
$$;
