-- 0111_dash_spend_response: spend response and peak-day inflation for dashboards. Grants the
-- read-only role funnel_dashboard (0031) SELECT on the three views.
-- dash_spend_response: fct_spend_response as stored. Grain: one row per (app_id, network).
-- dash_cpi_inflated_days: the inflated days, dearest excess first. Grain: one row per (app_id,
-- network, date).
-- dash_cpi_weekday: CPI by day of week (1 = Monday, ISO) per paid network over its whole history,
-- spend / paid installs of that weekday, and its index against the network's overall CPI.
-- Grain: one row per (app_id, network, weekday). Reads: fct_spend_response,
-- fct_cpi_inflated_days, fct_cpi.
create view dash_spend_response as
select r.app_id, r.network, r.status, r.days, r.exponent_b, r.exponent_b_low, r.exponent_b_high,
       r.exponent_b_se, r.scale_a, r.r_squared, r.current_spend, r.average_cpi, r.marginal_cpi, r.ltv_d180,
       r.headroom_spend, r.max_spend, r.saturated, r.inflated_days, r.advice
from fct_spend_response r;

create view dash_cpi_inflated_days as
select d.app_id, d.network, d.date, d.spend, d.paid_installs, d.cpi, d.expected_cpi, d.robust_z, d.excess_cost
from fct_cpi_inflated_days d
order by d.excess_cost desc;

create view dash_cpi_weekday as
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
    execute format('grant select on %I.dash_spend_response to funnel_dashboard', current_schema());
    execute format('grant select on %I.dash_cpi_inflated_days to funnel_dashboard', current_schema());
    execute format('grant select on %I.dash_cpi_weekday to funnel_dashboard', current_schema());
end
$$;
