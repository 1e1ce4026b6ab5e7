-- networks: one line per network of one app: cost, earnings, payback and the verdict with its reason.
-- Grain: one row per network. Reads: fct_networks.
select network, installs, paid_installs, spend, cpi, ltv_d7, ltv_d30, ltv_projected_d180,
       ltv_d180_low, ltv_d180_high, roas_d7, roas_d30, payback_day, payback_basis, k_factor,
       verdict, reason
from fct_networks
where app_id = $1
order by network = 'all', spend desc, network;
