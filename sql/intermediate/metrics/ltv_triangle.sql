-- ltv_triangle: the revenue triangle the LTV projections read, per network and for 'all': each
-- cohort's installs, last mature day (as fct_ltv.sql counts them, less $1 days: the
-- projections leave out the most recent data day, which late events leave incomplete: on
-- generated data its revenue per install came out 28% under the other days'), and its revenue
-- (USD x revenue share) and purchase days (users buying on the day) on each day 0..last_day that
-- has any, and its age (last_day without the max_day cap). A cohort without revenue comes once
-- with day_n null.
-- Grain: one row per (app_id, network, cohort_date, day_n). Reads: int_cohort_rollup,
-- int_network_day_rollup, compute_state, compute_settings.
with settings as (
    select * from compute_settings where app_id = ''
), cohorts as materialized (
    select z.app_id, z.cohort_date, z.network, z.cohort_size,
           least(s.max_day, cs.data_through_date - z.cohort_date
                            - case when s.day_rule = 'hours24' then 1 else 0 end - $1::integer) as last_day,
           cs.data_through_date - z.cohort_date - case when s.day_rule = 'hours24' then 1 else 0 end - $1::integer as age
    from (
        select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
        from int_cohort_rollup
        group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
    ) z
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
), cells as (
    select app_id, cohort_date, coalesce(network, 'all') as network, day_n,
           sum(revenue_usd) as revenue_usd, sum(payers) as purchases
    from int_network_day_rollup
    where revenue_usd <> 0 or payers <> 0
    group by grouping sets ((app_id, cohort_date, network, day_n), (app_id, cohort_date, day_n))
)
select c.app_id, c.network, c.cohort_date::text, c.cohort_size::float8, c.last_day,
       r.day_n, coalesce(r.revenue_usd, 0)::float8, coalesce(r.purchases, 0)::float8, c.age
from cohorts c
left join cells r on r.app_id = c.app_id and r.cohort_date = c.cohort_date and r.network = c.network
                 and r.day_n <= c.last_day
where c.last_day >= 0
order by c.app_id, c.network, c.cohort_date, r.day_n;
