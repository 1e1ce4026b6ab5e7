-- fct_campaigns: money per network, per campaign and per campaign and country (docs/metrics.md,
-- "Money by campaign"), from the detail rows of fct_cpi, the spend's grain: a cohort's spend,
-- installs and paid installs are those of its install date, and a campaign whose spend on a date
-- is stated without a country has that date's installs and revenue under country ''. Per row:
-- spend, installs, paid installs, payers, CPI = spend / paid installs (null without both), and
-- the chained LTV and ROAS on days 7, 30 and 90: the sum over days m = 0..N of the revenue on day
-- m of the row's cohorts mature for m, over those cohorts' installs (LTV) or spend (ROAS), so a
-- row's curve never falls but by refunds; null when no cohort of the row is mature for N. The
-- observed payback day is the first day the chained LTV reaches the CPI. Revenue is the day
-- rollup's (USD at the purchase date's rate, x revenue_share, net of refunds); LTVs are stored
-- rounded to 6 decimals.
-- The pooled LTV_D7, the projected LTV_D180 with its interval and ROAS, a payback past the
-- observed days and the verdict are written next by compute's campaign step (CampaignPooling,
-- NetworkVerdict): this statement leaves them null, 'n/a' and an empty reason.
-- Grain: one row per (app_id, network, campaign, country); campaign 'all' the network, country
-- 'all' the campaign. Reads: fct_cpi, int_cohort_rollup, int_cohort_day_rollup, compute_state,
-- compute_settings.
delete from fct_campaigns;

with settings as (
    select * from compute_settings where app_id = ''
), cells as materialized (
    select app_id, date, network, campaign, country, spend, installs, paid_installs
    from fct_cpi
    where network <> 'all' and campaign <> 'all' and country <> 'all'
), blank as (
    select distinct app_id, date, network, campaign from cells where country = ''
), payers as (
    select r.app_id, r.cohort_date as date, r.network, r.campaign,
           case when b.app_id is null then r.country else '' end as country, sum(r.payers) as payers
    from int_cohort_rollup r
    left join blank b on b.app_id = r.app_id and b.date = r.cohort_date and b.network = r.network
                     and b.campaign = r.campaign
    group by 1, 2, 3, 4, 5
), cohorts as materialized (
    select z.*,
           least(s.max_day, cs.data_through_date - z.date - case when s.day_rule = 'hours24' then 1 else 0 end)
               as last_day
    from (
        select c.app_id, c.date, c.network, coalesce(c.campaign, 'all') as campaign,
               coalesce(c.country, 'all') as country, sum(c.spend) as spend, sum(c.installs) as installs,
               sum(c.paid_installs) as paid_installs, sum(coalesce(p.payers, 0)) as payers
        from cells c
        left join payers p on p.app_id = c.app_id and p.date = c.date and p.network = c.network
                          and p.campaign = c.campaign and p.country = c.country
        group by grouping sets ((c.app_id, c.date, c.network, c.campaign, c.country),
                                (c.app_id, c.date, c.network, c.campaign), (c.app_id, c.date, c.network))
    ) z
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
), folded_revenue as (
    select r.app_id, r.cohort_date as date, r.network, r.campaign,
           case when b.app_id is null then r.country else '' end as country, r.day_n, r.revenue_usd
    from int_cohort_day_rollup r
    left join blank b on b.app_id = r.app_id and b.date = r.cohort_date and b.network = r.network
                     and b.campaign = r.campaign
    where r.revenue_usd <> 0
), revenue as (
    select app_id, date, network, coalesce(campaign, 'all') as campaign, coalesce(country, 'all') as country,
           day_n, sum(revenue_usd) as revenue_usd
    from folded_revenue
    group by grouping sets ((app_id, date, network, campaign, country, day_n),
                            (app_id, date, network, campaign, day_n), (app_id, date, network, day_n))
), day_revenue as (
    select c.app_id, c.network, c.campaign, c.country, r.day_n as day, sum(r.revenue_usd) as revenue_usd
    from revenue r
    join cohorts c on c.app_id = r.app_id and c.date = r.date and c.network = r.network
                  and c.campaign = r.campaign and c.country = r.country
    where r.day_n <= c.last_day
    group by 1, 2, 3, 4, 5
), by_last_day as (
    select app_id, network, campaign, country, last_day, sum(installs) as installs, sum(spend) as spend
    from cohorts where last_day >= 0
    group by 1, 2, 3, 4, 5
), days as (
    select b.app_id, b.network, b.campaign, b.country, g.day
    from (select app_id, network, campaign, country, max(last_day) as last_day
          from by_last_day group by 1, 2, 3, 4) b
    cross join lateral generate_series(0, b.last_day) as g (day)
), curve as (
    select d.app_id, d.network, d.campaign, d.country, d.day,
           sum(coalesce(b.installs, 0)) over later as installs,
           sum(coalesce(b.spend, 0)) over later as spend,
           coalesce(r.revenue_usd, 0) as revenue_usd
    from days d
    left join by_last_day b on b.app_id = d.app_id and b.network = d.network and b.campaign = d.campaign
                           and b.country = d.country and b.last_day = d.day
    left join day_revenue r on r.app_id = d.app_id and r.network = d.network and r.campaign = d.campaign
                           and r.country = d.country and r.day = d.day
    window later as (partition by d.app_id, d.network, d.campaign, d.country order by d.day desc)
), chained as (
    select c.app_id, c.network, c.campaign, c.country, c.day,
           case when c.installs > 0 then sum(case when c.installs > 0 then c.revenue_usd / c.installs else 0 end)
               over running end as ltv,
           case when c.spend > 0 then sum(case when c.spend > 0 then c.revenue_usd / c.spend else 0 end)
               over running end as roas
    from curve c
    window running as (partition by c.app_id, c.network, c.campaign, c.country order by c.day)
), totals as (
    select app_id, network, campaign, country, count(*)::integer as cohorts, sum(installs) as installs,
           sum(paid_installs) as paid_installs, sum(payers) as payers, sum(spend) as spend,
           max(last_day) as last_day
    from cohorts
    group by 1, 2, 3, 4
), measured as (
    select t.*,
           case when t.spend > 0 and t.paid_installs > 0 then t.spend / t.paid_installs end as cpi
    from totals t
), points as (
    select c.app_id, c.network, c.campaign, c.country,
           min(c.day) filter (where c.ltv >= m.cpi) as payback_day,
           max(c.ltv) filter (where c.day = 7) as ltv_d7, max(c.ltv) filter (where c.day = 30) as ltv_d30,
           max(c.ltv) filter (where c.day = 90) as ltv_d90,
           max(c.roas) filter (where c.day = 7) as roas_d7, max(c.roas) filter (where c.day = 30) as roas_d30,
           max(c.roas) filter (where c.day = 90) as roas_d90
    from chained c
    join measured m on m.app_id = c.app_id and m.network = c.network and m.campaign = c.campaign
                   and m.country = c.country
    group by 1, 2, 3, 4
)
insert into fct_campaigns (app_id, network, campaign, country, cohorts, installs, paid_installs, payers, spend, cpi,
                           ltv_d7, ltv_d30, ltv_d90, roas_d7, roas_d30, roas_d90, last_day, payback_day, payback_basis)
select m.app_id, m.network, m.campaign, m.country, m.cohorts, m.installs, m.paid_installs, m.payers, m.spend, m.cpi,
       round(p.ltv_d7, 6), round(p.ltv_d30, 6), round(p.ltv_d90, 6), p.roas_d7::double precision, p.roas_d30::double precision,
       p.roas_d90::double precision, m.last_day, p.payback_day,
       case when p.payback_day is not null then 'observed' end
from measured m
left join points p on p.app_id = m.app_id and p.network = m.network and p.campaign = m.campaign
                  and p.country = m.country;
