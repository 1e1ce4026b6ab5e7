-- money_unconverted: keeps the list of money compute could not convert to USD up to date on an
-- incremental run or a rebuild of part of the history: purchases and counted ad spend in a
-- currency without a rate on their date (the UTC date of purchased_at; the spend date; see
-- currency_rate_days.sql). The spend dates of the run (spend_scope, which holds the scope's dates
-- too) are listed again from raw_ad_spend, a changed currency's purchases from its first changed
-- date on are listed again from raw_purchases, and the purchases of the run's new files are added
-- (an event is stored once, so they add to what is listed). money_unconverted.full.sql lists the
-- whole history.
-- Ad spend counts as int_spend_day_rollup.sql counts it: hour rows, and a day row only where its
-- key has none.
-- Grain: one row per (app_id, source, currency, day). Reads: raw_purchases, raw_ad_spend,
-- currency_rate_days, currency_rate_spans, rate_changes, spend_scope, compute_window.
delete from money_unconverted m
where (m.source = 'ad_spend'
       and exists (select 1 from spend_scope sc where sc.app_id = m.app_id and sc.spend_date = m.day))
   or (m.source = 'purchases'
       and exists (select 1 from rate_changes rc where rc.currency = m.currency and m.day >= rc.changed_from));

with purchases as (
    select p.app_id, p.currency, p.revenue, (p.purchased_at at time zone 'UTC')::date as day
    from raw_purchases p
    join rate_changes rc on rc.currency = p.currency
                        and p.purchased_at >= rc.changed_from::timestamp at time zone 'UTC'
    where exists (select 1 from rate_changes)  -- a one-time filter: no pass over the purchases without changes
    union all
    select p.app_id, p.currency, p.revenue, (p.purchased_at at time zone 'UTC')::date
    from raw_purchases p
    where p.file_id between (select min(file_id) from compute_window) and (select max(file_id) from compute_window)
      and p.file_id in (select file_id from compute_window)
      and not exists (select 1 from rate_changes rc
                      where rc.currency = p.currency
                        and p.purchased_at >= rc.changed_from::timestamp at time zone 'UTC')
)
insert into money_unconverted (app_id, source, currency, day, rows, amount)
select p.app_id, 'purchases', p.currency, p.day, count(*), sum(p.revenue)
from purchases p
left join currency_rate_spans cs on cs.currency = p.currency
left join currency_rate_days cd on cd.currency = p.currency and cd.day = p.day
where coalesce(cd.usd_per_unit, case when p.day < cs.first_day then cs.before_usd else cs.after_usd end) is null
group by p.app_id, p.currency, p.day
on conflict (app_id, source, currency, day) do update
    set rows = money_unconverted.rows + excluded.rows,
        amount = money_unconverted.amount + excluded.amount;

insert into money_unconverted (app_id, source, currency, day, rows, amount)
select a.app_id, 'ad_spend', a.currency, a.spend_date, count(*), sum(a.spend)
from raw_ad_spend a
join spend_scope sc on sc.app_id = a.app_id and sc.spend_date = a.spend_date
left join currency_rate_spans cs on cs.currency = a.currency
left join currency_rate_days cd on cd.currency = a.currency and cd.day = a.spend_date
where coalesce(cd.usd_per_unit, case when a.spend_date < cs.first_day then cs.before_usd else cs.after_usd end) is null
  and (a.hour is not null
       or not exists (select 1 from raw_ad_spend h
                      where h.app_id = a.app_id and h.spend_date = a.spend_date and h.network = a.network
                        and h.campaign = a.campaign and h.country = a.country and h.hour is not null))
group by a.app_id, a.currency, a.spend_date;
