-- cpi_inflated_days: the days of one app whose CPI was abnormally high against the network's own
-- trend, dearest excess first.
-- Grain: one row per (network, date). Reads: fct_cpi_inflated_days.
select network, date::text as date, spend, paid_installs, cpi, expected_cpi, robust_z, excess_cost
from fct_cpi_inflated_days
where app_id = $1
order by excess_cost desc, network, date;
