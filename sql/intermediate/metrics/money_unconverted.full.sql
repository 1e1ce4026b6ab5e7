-- money_unconverted.full: lists again, for a rebuild of the whole history, every purchase and
-- counted ad spend row in a currency without a rate on its date (the UTC date of purchased_at; the
-- spend date), as money_unconverted.sql keeps the list on other runs.
-- Grain: one row per (app_id, source, currency, day). Reads: raw_purchases, raw_ad_spend,
-- currency_rate_days, currency_rate_spans.
delete from money_unconverted;

insert into money_unconverted (app_id, source, currency, day, rows, amount)
select p.app_id, 'purchases', p.currency, p.day, count(*), sum(p.revenue)
from (
    select app_id, currency, revenue, (purchased_at at time zone 'UTC')::date as day from raw_purchases
) p
left join currency_rate_spans cs on cs.currency = p.currency
left join currency_rate_days cd on cd.currency = p.currency and cd.day = p.day
where coalesce(cd.usd_per_unit, case when p.day < cs.first_day then cs.before_usd else cs.after_usd end) is null
group by p.app_id, p.currency, p.day;

insert into money_unconverted (app_id, source, currency, day, rows, amount)
select a.app_id, 'ad_spend', a.currency, a.spend_date, count(*), sum(a.spend)
from raw_ad_spend a
left join currency_rate_spans cs on cs.currency = a.currency
left join currency_rate_days cd on cd.currency = a.currency and cd.day = a.spend_date
where coalesce(cd.usd_per_unit, case when a.spend_date < cs.first_day then cs.before_usd else cs.after_usd end) is null
  and (a.hour is not null
       or not exists (select 1 from raw_ad_spend h
                      where h.app_id = a.app_id and h.spend_date = a.spend_date and h.network = a.network
                        and h.campaign = a.campaign and h.country = a.country and h.hour is not null))
group by a.app_id, a.currency, a.spend_date;
