-- scope_user_days: what each scope user did on each day after install: opens, whether they
-- were active (install day, an open, or an attribution partner's retention row), revenue in USD
-- times the revenue share, purchases, invites sent, and the event times later steps need.
-- Events before the install moment are ignored.
-- A purchase is converted at its currency's rate of its UTC date (currency_rate_days, else the
-- currency's span: currency_rate_days.sql); money without a rate counts 0 and is listed in
-- money_unconverted.
-- Grain: one row per (app_id, user_id, day_n). Reads: scope_installs, raw_opens, raw_retention,
-- raw_purchases, raw_invites, currency_rate_days, currency_rate_spans, compute_settings.
-- Revenue is cast to the column's numeric(20,6) in the select: Citus writes the rows of an insert
-- from distributed tables without the column's rounding.
-- Every day number is at least 0 without a filter: retention rows are read from day 0, and the
-- other events from the install moment, whose local date is the cohort date. (A filter on the
-- union's day number was pushed into each branch and computed every event's day twice.) Only
-- purchases carry revenue; the other events' is null, which the sum skips (summing 3M numeric
-- zeros took about 1 s at 300k users). A refund (a purchase row with a negative revenue) nets the
-- revenue of its own day and is no purchase: it counts in neither purchases nor purchase times.
truncate scope_user_days;

with settings as (
    select * from compute_settings where app_id = ''
), bounds as (
    select min(installed_at) - interval '1 day' as first_at from scope_installs
), events as (
    select si.app_id, si.user_id, 0 as day_n, 0 as opens, true as active, null::numeric as revenue_usd,
           0 as purchases, 0 as invites, null::timestamptz as open_at, null::timestamptz as purchase_at,
           si.installed_at as event_at
    from scope_installs si
    union all
    select o.app_id, o.user_id,
           cohort_day_number(o.opened_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           1, true, null, 0, 0, o.opened_at, null, o.opened_at
    from raw_opens o
    join scope_installs si on si.app_id = o.app_id and si.user_id = o.user_id
    cross join settings s
    where o.opened_at >= (select first_at from bounds) and o.opened_at >= si.installed_at
    union all
    select r.app_id, r.user_id, r.day, 0, true, null, 0, 0, null, null, r.reported_at
    from raw_retention r
    join scope_installs si on si.app_id = r.app_id and si.user_id = r.user_id
    where r.reported_at >= (select first_at from bounds) and r.day >= 0
    union all
    select p.app_id, p.user_id,
           cohort_day_number(p.purchased_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           0, false, p.revenue * coalesce(cd.usd_per_unit, case when (p.purchased_at at time zone 'UTC')::date < cs.first_day then cs.before_usd else cs.after_usd end, 0) * s.revenue_share,
           case when p.revenue < 0 then 0 else 1 end, 0, null, case when p.revenue < 0 then null else p.purchased_at end,
           p.purchased_at
    from raw_purchases p
    join scope_installs si on si.app_id = p.app_id and si.user_id = p.user_id
    left join currency_rate_spans cs on cs.currency = p.currency
    left join currency_rate_days cd on cd.currency = p.currency and cd.day = (p.purchased_at at time zone 'UTC')::date
    cross join settings s
    where p.purchased_at >= (select first_at from bounds) and p.purchased_at >= si.installed_at
    union all
    select v.app_id, v.user_id,
           cohort_day_number(v.sent_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           0, false, null, 0, 1, null, null, v.sent_at
    from raw_invites v
    join scope_installs si on si.app_id = v.app_id and si.user_id = v.user_id
    cross join settings s
    where v.sent_at >= (select first_at from bounds) and v.sent_at >= si.installed_at
)
insert into scope_user_days
select e.app_id, e.user_id, e.day_n,
       sum(e.opens),
       bool_or(e.active),
       coalesce(sum(e.revenue_usd), 0)::numeric(20,6),
       sum(e.purchases),
       sum(e.invites),
       min(e.open_at),
       array_agg(e.open_at) filter (where e.open_at is not null and e.day_n between 1 and s.regular_days),
       array_agg(e.purchase_at) filter (where e.purchase_at is not null),
       max(e.event_at)
from events e
cross join settings s
group by e.user_id, e.day_n, e.app_id, s.regular_days;

analyze scope_user_days;
