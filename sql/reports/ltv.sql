-- ltv: the LTV curve of one app per network, observed days then projected horizons. ltv is the
-- exact LTV of the cohorts mature for the day, ltv_chained the pooled curve that cannot fall, shown
-- whether enough installs back the day for a chart.
-- Grain: one row per (network, day, projected). Reads: fct_ltv.
select network, day, projected, cohorts, installs, revenue, ltv, ltv_low, ltv_high, spend, roas, ltv_chained, shown
from fct_ltv
where app_id = $1
order by network <> 'all', network, day, projected;
