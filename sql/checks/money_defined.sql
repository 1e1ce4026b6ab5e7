-- money_defined: CPI, blended CPI, ROAS or LTV that are zero-or-negative where they must be
-- undefined, infinite, or NaN; and negative spend. Grain: one row per offending mart row.
-- Reads: fct_cpi, fct_ltv, fct_networks.
select 'fct_cpi' as mart, app_id, network, date::text as key
from fct_cpi
where cpi <= 0 or blended_cpi <= 0 or spend < 0 or cpi = 'Infinity' or cpi = 'NaN'
   or blended_cpi = 'Infinity' or ipm = 'Infinity'
union all
select 'fct_ltv', app_id, network, day::text
from fct_ltv
where ltv < 0 or ltv = 'Infinity' or ltv = 'NaN' or roas = 'Infinity' or ltv_low > ltv or ltv_high < ltv
union all
select 'fct_networks', app_id, network, verdict
from fct_networks
where cpi <= 0 or spend < 0 or verdict not in ('scale', 'hold', 'trim', 'cut', 'not enough data', 'n/a')
