-- retention_summary: D1/D3/D7/D14/D30 of one app per network over the cohorts mature for the day.
-- Grain: one row per (mode, network, day). Reads: fct_retention_summary.
select mode, network, day, cohorts, cohort_size, retained, rate
from fct_retention_summary
where app_id = $1
order by mode, network <> 'all', network, day;
