-- money_defined: CPI or blended CPI that are zero-or-negative where they must be undefined, an LTV
-- or ROAS that is infinite or NaN, an interval that excludes its LTV, and negative spend. An LTV
-- below 0 is possible (refunds outweighing a cohort's purchases) and not flagged.
-- Grain: one row per offending mart row.
-- Reads: fct_cpi, fct_ltv, fct_networks.
select 'fct_cpi' as mart, app_id, network, date::text as key
from fct_cpi
where cpi <= 0 or blended_cpi <= 0 or spend < 0 or cpi = 'Infinity' or cpi = 'NaN'
   or blended_cpi = 'Infinity' or ipm = 'Infinity'
union all
select 'fct_ltv', app_id, network, day::text
from fct_ltv
where ltv = 'Infinity' or ltv = 'NaN' or roas = 'Infinity' or ltv_low > ltv or ltv_high < ltv
union all
select 'fct_networks', app_id, network, verdict
from fct_networks
where cpi <= 0 or spend < 0 or verdict not in ('scale', 'hold', 'trim', 'cut', 'not enough data', 'n/a')
