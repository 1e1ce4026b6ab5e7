-- fct_revenue: revenue per network and for the app ('all') over the days the LTV counts (days 0
-- to max_day after the user's install, USD x revenue share), split into net (the cohort rollups'
-- revenue, refunds netted on their own days), refunded (the refunds: purchase rows with a negative
-- revenue, as the positive amount refunded, converted at the rate of their date like every
-- purchase; currency_rate_days.sql) and gross (net + refunded: the purchases). The refunds are
-- read through the partial index raw_purchases_refunds: the pass costs what the refunds hold, not
-- the purchases. Money without a rate counts 0 here as everywhere (money_unconverted lists it).
-- Rebuilt whole on every run.
-- Grain: one row per (app_id, network), network 'all' for the app. Reads: int_cohort_day_rollup,
-- raw_purchases, int_user_facts, currency_rate_days, currency_rate_spans, compute_settings.
-- Writes: fct_revenue.
delete from fct_revenue;

with settings as (
    select * from compute_settings where app_id = ''
), refund_rows as (
    select f.app_id, f.network,
           -p.revenue * coalesce(cd.usd_per_unit, case when (p.purchased_at at time zone 'UTC')::date < cs.first_day
                                                       then cs.before_usd else cs.after_usd end, 0)
               * s.revenue_share as refunded,
           cohort_day_number(p.purchased_at, f.installed_at, f.cohort_date, s.time_zone, s.day_rule) as day_n,
           s.max_day
    from raw_purchases p
    join int_user_facts f on f.app_id = p.app_id and f.user_id = p.user_id and p.purchased_at >= f.installed_at
    left join currency_rate_spans cs on cs.currency = p.currency
    left join currency_rate_days cd on cd.currency = p.currency and cd.day = (p.purchased_at at time zone 'UTC')::date
    cross join settings s
    where p.revenue < 0
), refunds as (
    select app_id, network, count(*) as refunds, sum(refunded) as refunded
    from refund_rows
    where day_n between 0 and max_day
    group by app_id, network
), net as (
    select app_id, network, sum(revenue_usd) as net_revenue
    from int_cohort_day_rollup
    group by app_id, network
), joined as (
    select coalesce(n.app_id, r.app_id) as app_id, coalesce(n.network, r.network) as network,
           coalesce(r.refunds, 0) as refunds, coalesce(r.refunded, 0) as refunded,
           coalesce(n.net_revenue, 0) as net_revenue
    from net n
    full join refunds r on r.app_id = n.app_id and r.network = n.network
)
insert into fct_revenue (app_id, network, refunds, gross_revenue, refunded, net_revenue)
select app_id, coalesce(network, 'all'), sum(refunds),
       round(sum(net_revenue) + sum(refunded), 6), round(sum(refunded), 6), round(sum(net_revenue), 6)
from joined
group by grouping sets ((app_id, network), (app_id));
