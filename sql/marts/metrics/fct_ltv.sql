-- fct_ltv: the observed LTV curve per network and for 'all': for each day N, the cumulative
-- revenue (USD x revenue share) on days 0..N of the cohorts mature for day N, over those
-- cohorts' installs (ltv: exact for one cohort and for any cohorts all mature for N); with the
-- same cohorts' spend and ROAS day N = revenue / spend (NULL without spend). ltv_chained is the
-- pooled curve that cannot fall: the sum over days 0..N of day m's revenue per install of the
-- cohorts mature for m (equal to ltv while the same cohorts back every day). shown: the day is
-- backed by at least 10% of day 0's installs (charts stop where it is false). Projected rows are added by compute after fitting (see fct_ltv_models). Money is
-- numeric end to end (migration 0055): revenue and spend are exact sums, LTV their numeric
-- quotient, ROAS the exact sums' ratio as double precision.
-- Grain: one row per (app_id, network, day, projected). Reads: int_cohort_rollup,
-- int_network_day_rollup, int_spend_day_rollup, compute_state, compute_settings.
--
-- A cohort counts for days 0..L (its last mature day, capped at max_day), so day N's cohorts,
-- installs and spend are sums over the cohorts whose L >= N; and its revenue on day m counts
-- for days m..L, so day N's revenue is a running sum of +revenue on day m and -revenue on day
-- L + 1 over the revenue cells. Cost follows the cohorts and the cells with revenue, where
-- expanding every cohort into its days and summing each cohort's curve followed cohorts x days
-- (3.6 s for a daily run at a year of history, 0.14 s at 90 days).
delete from fct_ltv;

with settings as (
    select * from compute_settings where app_id = ''
), cohorts as materialized (
    select z.app_id, z.cohort_date, z.network, z.cohort_size,
           least(s.max_day, cs.data_through_date - z.cohort_date
                            - case when s.day_rule = 'hours24' then 1 else 0 end) as last_day
    from (
        select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
        from int_cohort_rollup
        group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
    ) z
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
), spend as (
    select app_id, spend_date, coalesce(network, 'all') as network, sum(spend_usd) as spend_usd
    from int_spend_day_rollup
    group by grouping sets ((app_id, spend_date, network), (app_id, spend_date))
), by_last_day as (
    select c.app_id, c.network, c.last_day, count(*) as cohorts, sum(c.cohort_size) as installs,
           sum(coalesce(sp.spend_usd, 0)) as spend_usd
    from cohorts c
    left join spend sp on sp.app_id = c.app_id and sp.spend_date = c.cohort_date and sp.network = c.network
    where c.last_day >= 0
    group by c.app_id, c.network, c.last_day
), cells as materialized (
    select c.app_id, c.network, r.day_n, c.last_day, r.revenue_usd
    from (
        select app_id, cohort_date, coalesce(network, 'all') as network, day_n, sum(revenue_usd) as revenue_usd
        from int_network_day_rollup
        where revenue_usd <> 0
        group by grouping sets ((app_id, cohort_date, network, day_n), (app_id, cohort_date, day_n))
    ) r
    join cohorts c on c.app_id = r.app_id and c.cohort_date = r.cohort_date and c.network = r.network
    where r.day_n <= c.last_day
), revenue_steps as (
    select r.app_id, r.network, step.day, sum(step.revenue_usd) as revenue_usd
    from cells r
    cross join lateral (values (r.day_n, r.revenue_usd), (r.last_day + 1, -r.revenue_usd)) as step (day, revenue_usd)
    group by r.app_id, r.network, step.day
), daily_revenue as (
    select app_id, network, day_n as day, sum(revenue_usd) as revenue_usd
    from cells
    group by app_id, network, day_n
), days as (
    select b.app_id, b.network, g.day
    from (select app_id, network, max(last_day) as last_day from by_last_day group by app_id, network) b
    cross join lateral generate_series(0, b.last_day) as g (day)
), curve as (
    select d.app_id, d.network, d.day,
           sum(coalesce(b.cohorts, 0)) over later as cohorts,
           sum(coalesce(b.installs, 0)) over later as installs,
           sum(coalesce(b.spend_usd, 0)) over later as spend_usd,
           sum(coalesce(r.revenue_usd, 0)) over earlier as revenue_usd,
           coalesce(dr.revenue_usd, 0) as day_revenue_usd
    from days d
    left join by_last_day b on b.app_id = d.app_id and b.network = d.network and b.last_day = d.day
    left join revenue_steps r on r.app_id = d.app_id and r.network = d.network and r.day = d.day
    left join daily_revenue dr on dr.app_id = d.app_id and dr.network = d.network and dr.day = d.day
    window later as (partition by d.app_id, d.network order by d.day desc),
           earlier as (partition by d.app_id, d.network order by d.day)
), chained as (
    select c.*,
           sum(case when c.installs > 0 then c.day_revenue_usd / c.installs else 0 end)
               over (partition by c.app_id, c.network order by c.day) as ltv_chained,
           first_value(c.installs) over (partition by c.app_id, c.network order by c.day) as day0_installs
    from curve c
)
insert into fct_ltv (app_id, network, day, projected, cohorts, installs, revenue, ltv, ltv_low, ltv_high, spend, roas,
                     ltv_chained, shown)
select app_id, network, day, false, cohorts, installs, revenue_usd,
       case when installs > 0 then revenue_usd / installs end,
       null, null,
       spend_usd,
       case when spend_usd > 0 then (revenue_usd / spend_usd)::double precision end,
       case when installs > 0 then ltv_chained end,
       installs > 0 and installs >= 0.1 * day0_installs
from chained;
