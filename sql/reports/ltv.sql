-- ltv: the LTV curve of one app per network, observed days then projected horizons.
-- Grain: one row per (network, day, projected). Reads: fct_ltv.
select network, day, projected, cohorts, installs, revenue, ltv, ltv_low, ltv_high, spend, roas
from fct_ltv
where app_id = $1
order by network <> 'all', network, day, projected;
