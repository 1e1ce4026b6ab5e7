-- retention_brackets: bracket retention (active at least once on days first_day..last_day) and the
-- regular-user rate of one app per network. Grain: one row per (network, bracket).
-- Reads: fct_retention_brackets.
select network, bracket, first_day, last_day, cohorts, cohort_size, retained, rate
from fct_retention_brackets
where app_id = $1
order by network <> 'all', network, first_day;
