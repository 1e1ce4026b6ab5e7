-- fct_campaigns.verdict_inputs: what each campaign's projection and verdict is decided on
-- (CampaignPooling, NetworkVerdict, in compute's campaign step): the fct_campaigns row (installs,
-- paid installs, payers, spend, CPI, last mature day), its network's LTV_D180 with its interval
-- (fct_networks), the campaign's response curve at today's spend (fct_spend_response, country
-- 'all'; a campaign and country has none), and its installs over the app's last $1 cohort days
-- with the app's first and last cohort day (days since 1970-01-01), from fct_cpi; and the observed
-- payback day.
-- Grain: one row per fct_campaigns row below the network (campaign <> 'all'), by app, network,
-- campaign, country.
with bounds as (
    select app_id, min(date) as first_date, max(date) as last_date
    from fct_cpi where network = 'all' group by app_id
), recent as (
    select c.app_id, c.network, c.campaign, coalesce(c.country, 'all') as country, sum(c.installs) as installs
    from fct_cpi c join bounds b on b.app_id = c.app_id
    where c.network <> 'all' and c.campaign <> 'all' and c.country <> 'all' and c.date > b.last_date - $1::integer
    group by grouping sets ((c.app_id, c.network, c.campaign, c.country), (c.app_id, c.network, c.campaign))
)
select k.app_id, k.network, k.campaign, k.country, k.installs::integer, k.paid_installs::integer,
       k.payers::integer, k.spend::float8, k.cpi::float8,
       n.ltv_projected_d180::float8, n.ltv_d180_low::float8, n.ltv_d180_high::float8,
       s.status, s.current_spend::float8, s.marginal_cpi::float8, s.headroom_spend::float8, s.advice,
       coalesce(r.installs, 0)::integer,
       (b.first_date - date '1970-01-01')::integer, (b.last_date - date '1970-01-01')::integer,
       k.payback_day
from fct_campaigns k
left join fct_networks n on n.app_id = k.app_id and n.network = k.network
left join fct_spend_response s on s.app_id = k.app_id and s.network = k.network and s.campaign = k.campaign
                               and s.country = 'all' and k.country = 'all'
left join recent r on r.app_id = k.app_id and r.network = k.network and r.campaign = k.campaign and r.country = k.country
left join bounds b on b.app_id = k.app_id
where k.campaign <> 'all'
order by k.app_id, k.network, k.campaign, k.country
