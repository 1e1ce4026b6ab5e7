-- fct_networks: one line per network (and 'all'): installs, spend, CPI, observed LTV D7/D30,
-- projected LTV D180 with its interval, ROAS D7/D30, payback day (first day with LTV >= CPI:
-- observed, else the first day the chosen projection in fct_ltv_projection reaches the CPI,
-- labelled by payback_basis), k-factor, and the verdict.
-- The verdict and its reason are written next, by compute's verdict step (NetworkVerdict, from
-- these figures and the network's response curve; docs/metrics.md, "Verdict"): this statement
-- leaves 'n/a' and an empty reason. A payback day is projected only up to the
-- projection horizon (the largest [ltv] horizon); past it payback_day is null and payback_basis
-- says 'beyond D<horizon>'.
-- Money is numeric (migration 0055): spend is an exact sum, CPI its numeric quotient.
-- Grain: one row per (app_id, network). Reads: int_cohort_rollup, int_spend_day_rollup, fct_ltv,
-- fct_ltv_projection, fct_kfactor, compute_settings.
delete from fct_networks;

with settings as (
    select * from compute_settings where app_id = ''
), installs as (
    select app_id, coalesce(network, 'all') as network, sum(installs) as installs,
           sum(paid_installs) as paid_installs, sum(payers) as payers
    from int_cohort_rollup group by grouping sets ((app_id, network), (app_id))
), spend as (
    select app_id, coalesce(network, 'all') as network, sum(spend_usd) as spend_usd
    from int_spend_day_rollup group by grouping sets ((app_id, network), (app_id))
), base as (
    select coalesce(i.app_id, s.app_id) as app_id, coalesce(i.network, s.network) as network,
           coalesce(i.installs, 0) as installs, coalesce(i.paid_installs, 0) as paid_installs,
           coalesce(i.payers, 0) as payers,
           coalesce(s.spend_usd, 0) as spend
    from installs i full join spend s on s.app_id = i.app_id and s.network = i.network
), measured as (
    select b.*,
           case when b.spend > 0 and b.paid_installs > 0 then b.spend / b.paid_installs end as cpi,
           (select l.ltv from fct_ltv l where l.app_id = b.app_id and l.network = b.network
              and l.day = 7 and not l.projected) as ltv_d7,
           (select l.ltv from fct_ltv l where l.app_id = b.app_id and l.network = b.network
              and l.day = 30 and not l.projected) as ltv_d30,
           (select l.roas from fct_ltv l where l.app_id = b.app_id and l.network = b.network
              and l.day = 7 and not l.projected) as roas_d7,
           (select l.roas from fct_ltv l where l.app_id = b.app_id and l.network = b.network
              and l.day = 30 and not l.projected) as roas_d30,
           (select l from fct_ltv l where l.app_id = b.app_id and l.network = b.network and l.day = 180
             order by l.projected limit 1) as d180,
           (select k.k_factor from fct_kfactor k where k.app_id = b.app_id and k.network = b.network) as k_factor
    from base b
), payback as (
    select m.*,
           (m.d180).ltv as ltv180,
           coalesce((m.d180).ltv_low, (m.d180).ltv) as ltv180_low,
           coalesce((m.d180).ltv_high, (m.d180).ltv) as ltv180_high,
           (select min(l.day) from fct_ltv l where l.app_id = m.app_id and l.network = m.network
              and not l.projected and m.cpi is not null and l.ltv >= m.cpi) as observed_payback,
           (select min(p.day) from fct_ltv_projection p where p.app_id = m.app_id and p.network = m.network
              and m.cpi is not null and p.ltv >= m.cpi) as projected_payback,
           exists (select 1 from fct_ltv_projection p where p.app_id = m.app_id and p.network = m.network)
               as has_projection
    from measured m
), decided as (
    select p.*,
           coalesce(p.observed_payback, p.projected_payback) as payback_day,
           p.observed_payback is null and p.projected_payback is null and p.cpi is not null and p.has_projection
               as payback_beyond,
           s.ltv_horizon
    from payback p cross join settings s
)
insert into fct_networks (app_id, network, installs, paid_installs, payers, spend, cpi, ltv_d7, ltv_d30,
                          ltv_projected_d180, ltv_d180_low, ltv_d180_high, roas_d7, roas_d30,
                          payback_day, payback_basis, k_factor, verdict, reason)
select d.app_id, d.network, d.installs, d.paid_installs, d.payers, d.spend, d.cpi, d.ltv_d7, d.ltv_d30,
       d.ltv180, d.ltv180_low, d.ltv180_high, d.roas_d7, d.roas_d30,
       d.payback_day,
       case when d.observed_payback is not null then 'observed'
            when d.payback_day is not null then 'projected'
            when d.payback_beyond then 'beyond D' || d.ltv_horizon end,
       d.k_factor,
       'n/a', ''
from decided d;
