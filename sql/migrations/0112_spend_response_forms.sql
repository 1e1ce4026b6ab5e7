-- 0112_spend_response_forms: fct_spend_response gains the saturating curve fitted beside the power
-- law and the form chosen by AIC (docs/metrics.md, "Spend response"), the ordinary standard error
-- of b beside the honest one (block bootstrap), and rows per campaign and per country of a network
-- (campaign or country 'all' is the network's total; a segment with too little history has status
-- 'not enough data' and no numbers).
-- dash_spend_response keeps its grain, one row per (app_id, network): the network totals, with the
-- new columns appended. dash_spend_response_segments: the per-campaign and per-country rows.
-- Grain: fct_spend_response one row per (app_id, network, campaign, country), where at most one of
-- campaign and country is not 'all'. Reads: fct_spend_response.
alter table fct_spend_response
    add column campaign              text not null default 'all',
    add column country               text not null default 'all',
    add column curve_form            text,
    add column saturating_capacity   double precision,
    add column saturating_half_spend double precision,
    add column aic_power_law         double precision,
    add column aic_saturating        double precision,
    add column exponent_b_se_ordinary double precision;

alter table fct_spend_response drop constraint fct_spend_response_pkey;
alter table fct_spend_response add primary key (app_id, network, campaign, country);

create or replace view dash_spend_response as
select r.app_id, r.network, r.status, r.days, r.exponent_b, r.exponent_b_low, r.exponent_b_high,
       r.exponent_b_se, r.scale_a, r.r_squared, r.current_spend, r.average_cpi, r.marginal_cpi, r.ltv_d180,
       r.headroom_spend, r.max_spend, r.saturated, r.inflated_days, r.advice,
       r.curve_form, r.saturating_capacity, r.saturating_half_spend, r.aic_power_law, r.aic_saturating,
       r.exponent_b_se_ordinary
from fct_spend_response r
where r.campaign = 'all' and r.country = 'all';

create view dash_spend_response_segments as
select r.app_id, r.network, r.campaign, r.country, r.status, r.days, r.curve_form, r.exponent_b,
       r.exponent_b_low, r.exponent_b_high, r.scale_a, r.saturating_capacity, r.saturating_half_spend,
       r.current_spend, r.average_cpi, r.marginal_cpi, r.ltv_d180, r.headroom_spend, r.saturated, r.advice
from fct_spend_response r
where r.campaign <> 'all' or r.country <> 'all';

do $$
begin
    execute format('grant select on %I.dash_spend_response_segments to funnel_dashboard', current_schema());
end
$$;
