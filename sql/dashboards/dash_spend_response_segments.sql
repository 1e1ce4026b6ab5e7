-- dash_spend_response_segments: the spend-response curves of each paid network's campaigns and
-- countries, where their history suffices (status says when it does not).
-- Grain: one row per (app_id, network, campaign, country), campaign or country not 'all'.
-- Reads: fct_spend_response.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_spend_response_segments as
select r.app_id, r.network, r.campaign, r.country, r.status, r.days, r.curve_form, r.exponent_b,
       r.exponent_b_low, r.exponent_b_high, r.scale_a, r.saturating_capacity, r.saturating_half_spend,
       r.current_spend, r.average_cpi, r.marginal_cpi, r.ltv_d180, r.headroom_spend, r.saturated, r.advice
from fct_spend_response r
where r.campaign <> 'all' or r.country <> 'all';

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_spend_response_segments to funnel_dashboard', current_schema());
    end if;
end
$$;
