-- int_spend_day_rollup: rebuilds spend (USD), impressions and clicks for the scope's dates and
-- the spend dates the run's new files touch.
-- Spend is converted at its currency's rate of the spend date (currency_rate_days, else the
-- currency's span: currency_rate_days.sql); spend without a rate counts as 0 USD here and is
-- listed in money_unconverted (money_unconverted.sql), which compute, status and reports name.
-- A day's spend is the sum of its hour rows; a row without an hour counts only when its (date,
-- network, campaign, country, adset, creative) has no hour rows (hour rows carry the day in more
-- detail). Ad sets and creatives add up to their campaign.
-- Grain: one row per (app_id, spend_date, network, campaign, country). Reads: compute_scope, spend_scope,
-- raw_ad_spend, currency_rate_days, currency_rate_spans. The sum is cast to the column's numeric(20,6) in the select: Citus
-- writes the rows of an insert it plans (currency_rates is a reference table there) without the
-- column's rounding.
insert into spend_scope (app_id, spend_date)
select app_id, cohort_date from compute_scope
on conflict do nothing;

delete from int_spend_day_rollup r using spend_scope sc
where r.app_id = sc.app_id and r.spend_date = sc.spend_date;

insert into int_spend_day_rollup
select a.app_id, a.spend_date, a.network, a.campaign, a.country,
       sum(a.spend * coalesce(cd.usd_per_unit, case when a.spend_date < cs.first_day then cs.before_usd else cs.after_usd end, 0))::numeric(20,6),
       coalesce(sum(a.impressions), 0),
       coalesce(sum(a.clicks), 0)
from raw_ad_spend a
join spend_scope sc on sc.app_id = a.app_id and sc.spend_date = a.spend_date
left join currency_rate_spans cs on cs.currency = a.currency
left join currency_rate_days cd on cd.currency = a.currency and cd.day = a.spend_date
where a.hour is not null
   or not exists (select 1 from raw_ad_spend h
                  where h.app_id = a.app_id and h.spend_date = a.spend_date and h.network = a.network
                    and h.campaign = a.campaign and h.country = a.country and h.adset = a.adset
                    and h.creative = a.creative and h.hour is not null)
group by a.app_id, a.spend_date, a.network, a.campaign, a.country;
