-- cpi_by_hour: one app's CPI by hour of day (reporting time zone) per paid network, over the days
-- whose ad_spend rows carry an hour; empty when no row does.
-- Grain: one row per (network, hour). Reads: fct_cpi_hourly.
select network, hour, days, spend, paid_installs, cpi, cpi_index
from fct_cpi_hourly
where app_id = $1
order by network, hour;
