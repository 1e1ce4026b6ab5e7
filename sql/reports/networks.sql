-- networks: one line per network of one app: cost, earnings (revenue to date: gross, refunds and
-- net), payback and the verdict with its reason.
-- Grain: one row per network. Reads: fct_networks, fct_revenue.
select n.network, n.installs, n.paid_installs, n.spend, n.cpi, n.ltv_d7, n.ltv_d30, n.ltv_projected_d180,
       n.ltv_d180_low, n.ltv_d180_high, n.roas_d7, n.roas_d30, n.payback_day, n.payback_basis, n.k_factor,
       n.verdict, n.reason,
       coalesce(r.refunds, 0) as refunds,
       coalesce(r.gross_revenue, 0) as gross_revenue, coalesce(r.refunded, 0) as refunded,
       coalesce(r.net_revenue, 0) as net_revenue
from fct_networks n
left join fct_revenue r on r.app_id = n.app_id and r.network = n.network
where n.app_id = $1
order by n.network = 'all', n.spend desc, n.network;
