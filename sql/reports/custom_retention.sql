-- custom_retention: the configured retentions ([[retention]]) of one app: classic and rolling
-- retention per period and the brackets, pooled over the mature cohorts, per network and 'all'.
-- Grain: one row per (retention, network, measure, first_period, last_period).
-- Reads: fct_custom_retention_summary.
select retention, network, measure, first_period, last_period, cohorts, cohort_size, retained, rate
from fct_custom_retention_summary
where app_id = $1
order by retention, network <> 'all', network, measure, first_period, last_period;
