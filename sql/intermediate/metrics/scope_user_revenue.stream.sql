-- scope_user_revenue.stream: each scope user's revenue per day after install, in USD times the
-- revenue share, summed and rounded as scope_user_days.sql sums a day's (numeric, exact), for the
-- client's pass over the whole history (UserDaysTable), which adds these sums into its cells.
-- Purchases are few beside the other events, so their sums stay in SQL.
-- A purchase is converted at its currency's rate of its UTC date (currency_rate_days, else the
-- currency's span: currency_rate_days.sql); money without a rate counts 0 and is listed in
-- money_unconverted.
-- Grain: one row per (app_id, user_id, day_n) with a purchase. Reads: scope_installs,
-- raw_purchases, currency_rate_days, currency_rate_spans, compute_settings.
with settings as (
    select * from compute_settings where app_id = ''
), bounds as (
    select min(installed_at) - interval '1 day' as first_at from scope_installs
)
select p.app_id, p.user_id,
       cohort_day_number(p.purchased_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule)::bigint as day_n,
       coalesce(sum(p.revenue * coalesce(cd.usd_per_unit, case when (p.purchased_at at time zone 'UTC')::date < cs.first_day then cs.before_usd else cs.after_usd end, 0) * s.revenue_share), 0)::numeric(20,6)::text as revenue_usd
from raw_purchases p
join scope_installs si on si.app_id = p.app_id and si.user_id = p.user_id
left join currency_rate_spans cs on cs.currency = p.currency
left join currency_rate_days cd on cd.currency = p.currency and cd.day = (p.purchased_at at time zone 'UTC')::date
cross join settings s
where p.purchased_at >= (select first_at from bounds) and p.purchased_at >= si.installed_at
group by 1, 2, 3
