-- int_spend_day_rollup: rebuilds spend (USD), impressions and clicks for the scope's dates.
-- Spend in a currency without a rate counts as 0 USD (compute's checks list such rows).
-- Grain: one row per (app_id, spend_date, network, campaign, country). Reads: compute_scope,
-- raw_ad_spend, currency_rates.
delete from int_spend_day_rollup r using compute_scope sc
where r.app_id = sc.app_id and r.spend_date = sc.cohort_date;

insert into int_spend_day_rollup
select a.app_id, a.spend_date, a.network, a.campaign, a.country,
       sum(a.spend * coalesce(cr.usd_per_unit, 0)),
       coalesce(sum(a.impressions), 0),
       coalesce(sum(a.clicks), 0)
from raw_ad_spend a
join compute_scope sc on sc.app_id = a.app_id and sc.cohort_date = a.spend_date
left join currency_rates cr on cr.currency = a.currency
group by a.app_id, a.spend_date, a.network, a.campaign, a.country;
