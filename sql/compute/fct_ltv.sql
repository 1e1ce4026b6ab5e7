-- fct_ltv: the observed LTV curve per network and for 'all': for each day N, the cumulative
-- revenue (USD x revenue share) on days 0..N of the cohorts mature for day N, over those
-- cohorts' installs; with the same cohorts' spend and ROAS day N = revenue / spend (NULL without
-- spend). Projected rows are added by compute after fitting (see fct_ltv_models).
-- Grain: one row per (app_id, network, day, projected). Reads: int_cohort_rollup,
-- int_network_day_rollup, int_spend_day_rollup, compute_state, compute_settings.
delete from fct_ltv;

with settings as (
    select * from compute_settings where app_id = ''
), sizes as materialized (
    select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
    from int_cohort_rollup
    group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
), revenue as materialized (
    select app_id, cohort_date, coalesce(network, 'all') as network, day_n, sum(revenue_usd) as revenue_usd
    from int_network_day_rollup
    group by grouping sets ((app_id, cohort_date, network, day_n), (app_id, cohort_date, day_n))
), spend as materialized (
    select app_id, spend_date, coalesce(network, 'all') as network, sum(spend_usd) as spend_usd
    from int_spend_day_rollup
    group by grouping sets ((app_id, spend_date, network), (app_id, spend_date))
), spine as (
    select z.app_id, z.cohort_date, z.network, z.cohort_size, g.day
    from sizes z
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
    cross join lateral generate_series(
        0, least(s.max_day, cs.data_through_date - z.cohort_date
                            - case when s.day_rule = 'hours24' then 1 else 0 end)) as g (day)
), cumulative as (
    select sp.*, sum(coalesce(r.revenue_usd, 0)) over (
               partition by sp.app_id, sp.cohort_date, sp.network order by sp.day) as cumulative_usd
    from spine sp
    left join revenue r
      on r.app_id = sp.app_id and r.cohort_date = sp.cohort_date and r.network = sp.network and r.day_n = sp.day
)
insert into fct_ltv (app_id, network, day, projected, cohorts, installs, revenue, ltv, ltv_low, ltv_high, spend, roas)
select c.app_id, c.network, c.day, false, count(*), sum(c.cohort_size), sum(c.cumulative_usd),
       case when sum(c.cohort_size) > 0 then sum(c.cumulative_usd)::double precision / sum(c.cohort_size) end,
       null, null,
       sum(coalesce(sp.spend_usd, 0)),
       case when sum(coalesce(sp.spend_usd, 0)) > 0
            then sum(c.cumulative_usd)::double precision / sum(coalesce(sp.spend_usd, 0)) end
from cumulative c
left join spend sp on sp.app_id = c.app_id and sp.spend_date = c.cohort_date and sp.network = c.network
group by c.app_id, c.network, c.day;
