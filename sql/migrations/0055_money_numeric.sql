-- 0055_money_numeric: the marts keep money as exact decimals (numeric) instead of double
-- precision. Sums of float8 depend on the order rows are read in: report totals drifted in the
-- last digit (16191.929999999997 against 16191.93) after interrupted full computes. Spend and
-- revenue are sums of the numeric(20,6) amounts of the intermediate tables, exact in any order;
-- an average of them (CPI, blended CPI, LTV, viral-adjusted CPI) is their numeric quotient (at
-- least 16 significant digits, the same for the same sums). The projected LTV and its interval
-- come from a floating-point fit: compute stores them rounded to 6 decimals (a millionth of a
-- USD, the scale amounts are stored at), so the same fit stores the same value. Reports round to
-- cents only for display. Ratios (ROAS, rates, k-factor) and the LTV model's coefficients stay
-- double precision, taken from the exact sums.
-- Columns turned to numeric: fct_ltv revenue, ltv, ltv_low, ltv_high, spend; fct_cpi spend, cpi,
-- blended_cpi; fct_kfactor cpi, viral_adjusted_cpi; fct_networks spend, cpi, ltv_d7, ltv_d30,
-- ltv_projected_d180, ltv_d180_low, ltv_d180_high. Stored spend and revenue are rounded to the 6
-- decimals they were summed from, other values keep the 15 digits a double converts with; the
-- next compute writes them all again. The dash_* views that select these columns block the change:
-- they are dropped and made again as migration 0030 made them, with ltv_over_cpi still double
-- precision, and granted again to funnel_dashboard (migration 0031).
-- Grain: unchanged. Reads: fct_ltv, fct_cpi, fct_kfactor, fct_networks.

drop view dash_acquisition;
drop view dash_ltv_cpi;
drop view dash_networks;
drop view dash_kfactor;

alter table fct_ltv
    alter column revenue  type numeric using round(revenue::numeric, 6),
    alter column ltv      type numeric using ltv::numeric,
    alter column ltv_low  type numeric using ltv_low::numeric,
    alter column ltv_high type numeric using ltv_high::numeric,
    alter column spend    type numeric using round(spend::numeric, 6);

alter table fct_cpi
    alter column spend       type numeric using round(spend::numeric, 6),
    alter column cpi         type numeric using cpi::numeric,
    alter column blended_cpi type numeric using blended_cpi::numeric;

alter table fct_kfactor
    alter column cpi                type numeric using cpi::numeric,
    alter column viral_adjusted_cpi type numeric using viral_adjusted_cpi::numeric;

alter table fct_networks
    alter column spend              type numeric using round(spend::numeric, 6),
    alter column cpi                type numeric using cpi::numeric,
    alter column ltv_d7             type numeric using ltv_d7::numeric,
    alter column ltv_d30            type numeric using ltv_d30::numeric,
    alter column ltv_projected_d180 type numeric using ltv_projected_d180::numeric,
    alter column ltv_d180_low       type numeric using ltv_d180_low::numeric,
    alter column ltv_d180_high      type numeric using ltv_d180_high::numeric;

-- The views as migration 0030 made them (columns documented there).
create view dash_acquisition as
select (c.date::timestamp at time zone 'UTC') as time,
       c.app_id, c.date, c.network, c.campaign, c.country,
       c.spend, c.impressions, c.clicks, c.installs, c.paid_installs,
       c.cpi, c.blended_cpi, c.ctr, c.ipm
from fct_cpi c
where c.network <> 'all'
  and not (c.campaign = 'all' and c.country = 'all');

-- ltv_over_cpi is a ratio: double precision as before.
create view dash_ltv_cpi as
select l.app_id, l.network, l.day, l.projected, l.installs, l.revenue, l.ltv, l.ltv_low, l.ltv_high,
       n.cpi,
       case when n.cpi > 0 then (l.ltv / n.cpi)::double precision end as ltv_over_cpi,
       l.roas
from fct_ltv l
left join fct_networks n on n.app_id = l.app_id and n.network = l.network;

create view dash_networks as
select n.app_id, n.network, n.installs, n.paid_installs, n.spend, n.cpi, n.ltv_d7, n.ltv_d30,
       n.ltv_projected_d180, n.ltv_d180_low, n.ltv_d180_high, n.roas_d7, n.roas_d30, n.payback_day,
       n.payback_basis, n.k_factor, n.verdict, n.reason
from fct_networks n;

create view dash_kfactor as
select k.app_id, k.network, k.cohort_size, k.invites_sent, k.viral_installs, k.invites_per_user,
       k.invite_conversion, k.k_factor, k.cycle_time_hours, k.amplification, k.cpi, k.viral_adjusted_cpi
from fct_kfactor k;

do $$
declare
    view_name text;
begin
    foreach view_name in array array['dash_acquisition', 'dash_ltv_cpi', 'dash_networks', 'dash_kfactor'] loop
        execute format('grant select on %I.%I to funnel_dashboard', current_schema(), view_name);
    end loop;
end
$$;
