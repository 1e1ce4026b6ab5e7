-- fct_networks.verdict_inputs: what each network's verdict is decided on (NetworkVerdict, in
-- compute's verdict step): fct_networks' installs, payers, spend, CPI and LTV_D180 with its
-- interval and basis (fct_ltv day 180: observed when the curve reaches it), the network's
-- response curve at today's spend (fct_spend_response, campaign and country 'all'), and its
-- installs over the app's last $1 cohort days with the app's first and last cohort day (days
-- since 1970-01-01) from int_cohort_rollup.
-- Grain: one row per (app_id, network) of fct_networks, 'all' included, ordered by app.
with bounds as (
    select app_id, min(cohort_date) as first_date, max(cohort_date) as last_date
    from int_cohort_rollup group by app_id
), recent as (
    select r.app_id, coalesce(r.network, 'all') as network, sum(r.installs) as installs
    from int_cohort_rollup r join bounds b on b.app_id = r.app_id
    where r.cohort_date > b.last_date - $1::integer
    group by grouping sets ((r.app_id, r.network), (r.app_id))
)
select n.app_id, n.network, n.installs::integer, n.paid_installs::integer, coalesce(n.payers, 0)::integer,
       n.spend::float8, n.cpi::float8, n.ltv_projected_d180::float8, n.ltv_d180_low::float8, n.ltv_d180_high::float8,
       coalesce((select l.projected from fct_ltv l where l.app_id = n.app_id and l.network = n.network and l.day = 180
                 order by l.projected limit 1), true),
       s.status, s.current_spend::float8, s.marginal_cpi::float8, s.headroom_spend::float8, s.advice,
       coalesce(r.installs, 0)::integer,
       (b.first_date - date '1970-01-01')::integer, (b.last_date - date '1970-01-01')::integer
from fct_networks n
left join fct_spend_response s on s.app_id = n.app_id and s.network = n.network
                               and s.campaign = 'all' and s.country = 'all'
left join recent r on r.app_id = n.app_id and r.network = n.network
left join bounds b on b.app_id = n.app_id
order by n.app_id, n.network
