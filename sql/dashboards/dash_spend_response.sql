-- dash_spend_response: each paid network's spend-response curve as fct_spend_response stores it
-- (the network's own row; campaigns and countries are in dash_spend_response_segments).
-- Grain: one row per (app_id, network). Reads: fct_spend_response.
-- Columns: app_id, network, status, days, exponent_b, exponent_b_low, exponent_b_high,
-- exponent_b_se, scale_a, r_squared, current_spend, average_cpi, marginal_cpi, ltv_d180,
-- headroom_spend, max_spend, saturated, inflated_days, advice, curve_form, saturating_capacity,
-- saturating_half_spend, aic_power_law, aic_saturating, exponent_b_se_ordinary.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_spend_response as
select r.app_id, r.network, r.status, r.days, r.exponent_b, r.exponent_b_low, r.exponent_b_high,
       r.exponent_b_se, r.scale_a, r.r_squared, r.current_spend, r.average_cpi, r.marginal_cpi, r.ltv_d180,
       r.headroom_spend, r.max_spend, r.saturated, r.inflated_days, r.advice,
       r.curve_form, r.saturating_capacity, r.saturating_half_spend, r.aic_power_law, r.aic_saturating,
       r.exponent_b_se_ordinary
from fct_spend_response r
where r.campaign = 'all' and r.country = 'all';

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_spend_response to funnel_dashboard', current_schema());
    end if;
end
$$;
