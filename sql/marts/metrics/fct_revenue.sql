-- fct_revenue: revenue to date per network and for the app ('all'), split into gross (the
-- purchases), refunded (the refunds: purchase rows with a negative revenue, as the positive amount
-- refunded) and net (gross - refunded), counted as the LTV counts revenue: USD at the rate of each
-- row's date (UTC; currency_rate_days.sql), times the revenue share, rows at or after the user's
-- first install, on every day since it (the LTV curve stops at max_day). Money without a rate counts
-- 0 here as everywhere (money_unconverted lists it). The purchase and refund counts are rows.
-- Rebuilt whole on every run: a pass over the purchases, as ltv_buyers.sql makes.
-- Grain: one row per (app_id, network), network 'all' for the app. Reads: raw_purchases,
-- int_user_facts, currency_rate_days, currency_rate_spans, compute_settings. Writes: fct_revenue.
delete from fct_revenue;

with settings as (
    select * from compute_settings where app_id = ''
), converted as (
    select f.app_id, f.network, p.revenue < 0 as is_refund,
           p.revenue * coalesce(cd.usd_per_unit, case when (p.purchased_at at time zone 'UTC')::date < cs.first_day
                                                      then cs.before_usd else cs.after_usd end, 0)
               * s.revenue_share as usd
    from raw_purchases p
    join int_user_facts f on f.app_id = p.app_id and f.user_id = p.user_id and p.purchased_at >= f.installed_at
    left join currency_rate_spans cs on cs.currency = p.currency
    left join currency_rate_days cd on cd.currency = p.currency and cd.day = (p.purchased_at at time zone 'UTC')::date
    cross join settings s
)
insert into fct_revenue (app_id, network, purchases, refunds, gross_revenue, refunded, net_revenue)
select app_id, coalesce(network, 'all'),
       count(*) filter (where not is_refund), count(*) filter (where is_refund),
       round(coalesce(sum(usd) filter (where not is_refund), 0), 6),
       round(coalesce(-sum(usd) filter (where is_refund), 0), 6),
       round(coalesce(sum(usd), 0), 6)
from converted
group by grouping sets ((app_id, network), (app_id));
