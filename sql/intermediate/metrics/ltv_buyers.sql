-- ltv_buyers: every buyer's purchase days (days since install with a purchase) and their revenue
-- on each (USD x revenue share, as the triangle counts it), for the per-user purchase model
-- (PurchaseModelProjection: BG/NBD on the days, Gamma-Gamma on each buyer's mean revenue per
-- purchase day); users who never bought are counted from the triangle's installs instead of read
-- one by one. The days are those of int_user_facts.purchase_days: purchases at or after the
-- install, numbered by the day rule in force. With them, the user and the cohort's last mature
-- day as the projections count it (ltv_triangle.sql: the most recent data day left out), for
-- each buyer's own value (fct_user_value).
-- Refunds (negative revenue) are no purchases: the per-user model counts purchases and their gross
-- revenue; the cohorts' revenue, LTV and ROAS are net of refunds (scope_user_days.sql).
-- A purchase is converted at its currency's rate of its UTC date (currency_rate_days, else the
-- currency's span: currency_rate_days.sql); money without a rate counts 0 and is listed in
-- money_unconverted.
-- Grain: one row per (app_id, user_id) with purchases. Reads: int_user_facts, raw_purchases,
-- currency_rate_days, currency_rate_spans, compute_settings, compute_state.
with settings as (
    select * from compute_settings where app_id = ''
), buyer_days as (
    -- the day number computed in the select list (a lateral subquery without FROM calling the
    -- stable cohort_day_number is refused by Citus); grouped by user, so each shard groups its own
    select f.app_id, f.user_id,
           cohort_day_number(p.purchased_at, f.installed_at, f.cohort_date, s.time_zone, s.day_rule) as day_n,
           sum(p.revenue * coalesce(cd.usd_per_unit, case when (p.purchased_at at time zone 'UTC')::date < cs.first_day then cs.before_usd else cs.after_usd end, 0) * s.revenue_share) as revenue_usd
    from int_user_facts f
    join raw_purchases p on p.app_id = f.app_id and p.user_id = f.user_id and p.purchased_at >= f.installed_at
    left join currency_rate_spans cs on cs.currency = p.currency
    left join currency_rate_days cd on cd.currency = p.currency and cd.day = (p.purchased_at at time zone 'UTC')::date
    cross join settings s
    where f.purchase_days <> '{}' and p.revenue >= 0
    group by f.app_id, f.user_id, 3
)
select f.app_id, f.network, f.cohort_date::text,
       string_agg(b.day_n::text, ',' order by b.day_n),
       string_agg(b.revenue_usd::float8::text, ',' order by b.day_n),
       f.user_id,
       least(s.max_day, cs.data_through_date - f.cohort_date
                        - case when s.day_rule = 'hours24' then 1 else 0 end - 1) as last_day
from buyer_days b
join int_user_facts f on f.app_id = b.app_id and f.user_id = b.user_id
join compute_state cs on cs.app_id = f.app_id
cross join settings s
where b.day_n >= 0
group by f.app_id, f.user_id, f.network, f.cohort_date, cs.data_through_date, s.max_day, s.day_rule;
