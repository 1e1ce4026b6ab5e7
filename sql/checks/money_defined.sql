-- money_defined: CPI or blended CPI that are zero-or-negative where they must be undefined, an LTV
-- or ROAS that is infinite or NaN, an interval that excludes its LTV, and negative spend. An LTV
-- below 0 is possible (refunds outweighing a cohort's purchases) and not flagged. A campaign's
-- pooling weight outside 0..1 is flagged too.
-- Grain: one row per offending mart row.
-- Reads: fct_cpi, fct_ltv, fct_networks, fct_campaigns.
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
union all
select 'fct_campaigns', app_id, network || '/' || campaign || '/' || country, verdict
from fct_campaigns
where cpi <= 0 or spend < 0 or roas_d7 = 'Infinity' or roas_d7 = 'NaN' or pooling_weight < 0 or pooling_weight > 1
   or ltv_d180_low > ltv_projected_d180 or ltv_d180_high < ltv_projected_d180
   or verdict not in ('scale', 'hold', 'trim', 'cut', 'not enough data', 'n/a')
