-- campaigns: money per network, campaign and campaign and country of one app ($1), as compute
-- wrote it (fct_campaigns, docs/metrics.md "Money by campaign"): the country rows only when $2
-- asks for the country breakdown. Each network first, then its campaigns by spend, each with its
-- countries below it.
-- Grain: one row per (network, campaign, country). Reads: fct_campaigns.
select k.network, k.campaign, k.country, k.cohorts, k.installs, k.paid_installs, k.payers, k.spend, k.cpi,
       k.ltv_d7, k.ltv_d30, k.ltv_d90, k.roas_d7, k.roas_d30, k.roas_d90, k.observed_ltv_d7, k.pooled_ltv_d7,
       k.pooling_weight, k.ltv_projected_d180, k.ltv_d180_low, k.ltv_d180_high, k.roas_projected_d180,
       k.payback_day, k.payback_basis, k.verdict, k.reason
from fct_campaigns k
left join fct_campaigns n on n.app_id = k.app_id and n.network = k.network and n.campaign = 'all' and n.country = 'all'
left join fct_campaigns c on c.app_id = k.app_id and c.network = k.network and c.campaign = k.campaign
                         and c.country = 'all'
where k.app_id = $1 and (k.country = 'all' or $2::boolean)
order by n.spend desc nulls last, k.network, k.campaign <> 'all', c.spend desc nulls last, k.campaign,
         k.country <> 'all', k.spend desc, k.country;
