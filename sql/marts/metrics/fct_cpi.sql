-- fct_cpi: spend, impressions, clicks and installs by day, network, campaign and country, with
-- per-(day, network) and per-day totals (campaign/country or network = 'all'). Cost goes to the
-- install date. installs counts every install in the row's scope; paid_installs the non-viral
-- installs of paid networks. cpi = spend / paid_installs, blended_cpi = spend / installs,
-- ctr = clicks / impressions, ipm = paid installs per 1,000 impressions: each NULL when its
-- denominator or the spend is zero, never infinite or 0. Money is numeric (migration 0055): spend
-- is an exact sum, the same whichever rows a run computes again, and CPIs its numeric quotients.
-- Spend and installs meet at the grain the spend has: on a date where a (network, campaign)'s spend
-- is stated without a country (country ''), its installs of every country, and any spend it has
-- with a country, are counted under country '' (a cell never holds spend of one grain against
-- installs of another).
-- Grain: one row per (app_id, date, network, campaign, country). Reads: int_spend_day_rollup,
-- int_cohort_rollup, and this run's spend_scope. $1: whether the run is incremental (false: a
-- whole rebuild, which computes every date again).
-- An incremental run computes again only the dates whose rollups it changed: spend_scope, the spend
-- dates its files touch and (int_spend_day_rollup.sql adds them) the cohort dates it rebuilt. The
-- fold of known users changes no date's installs: their first install, hence their cohort, network,
-- campaign, country and acquisition, stays. At a year of history the whole table (53k rows) took
-- 0.35 s a day. The rows computed again are compared with the stored ones and only those that
-- differ are written (deleting and re-inserting every row cost twice as much). Nulls compare equal
-- (an undefined CPI stays undefined).
with dates as (
    select app_id, spend_date as date from spend_scope
), blank as (
    -- (date, network, campaign) whose spend is stated without a country on that date
    select distinct s.app_id, s.spend_date, s.network, s.campaign
    from int_spend_day_rollup s
    where s.country = '' and (not $1 or (s.app_id, s.spend_date) in (select app_id, date from dates))
), installs as (
    select r.app_id, r.cohort_date as date, r.network, r.campaign,
           case when b.app_id is null then r.country else '' end as country,
           sum(r.installs) as installs, sum(r.paid_installs) as paid_installs
    from int_cohort_rollup r
    left join blank b on b.app_id = r.app_id and b.spend_date = r.cohort_date and b.network = r.network
                     and b.campaign = r.campaign
    where not $1 or (r.app_id, r.cohort_date) in (select app_id, date from dates)
    group by 1, 2, 3, 4, 5
), spend as (
    select s.app_id, s.spend_date, s.network, s.campaign,
           case when b.app_id is null then s.country else '' end as country,
           sum(s.spend_usd) as spend_usd, sum(s.impressions) as impressions, sum(s.clicks) as clicks
    from int_spend_day_rollup s
    left join blank b on b.app_id = s.app_id and b.spend_date = s.spend_date and b.network = s.network
                     and b.campaign = s.campaign
    where not $1 or (s.app_id, s.spend_date) in (select app_id, date from dates)
    group by 1, 2, 3, 4, 5
), stored as (
    select t.ctid as stored_row, t.*
    from fct_cpi t
    where not $1 or (t.app_id, t.date) in (select app_id, date from dates)
), joined as (
    select coalesce(s.app_id, i.app_id) as app_id,
           coalesce(s.spend_date, i.date) as date,
           coalesce(s.network, i.network) as network,
           coalesce(s.campaign, i.campaign) as campaign,
           coalesce(s.country, i.country) as country,
           coalesce(s.spend_usd, 0) as spend, coalesce(s.impressions, 0) as impressions,
           coalesce(s.clicks, 0) as clicks, coalesce(i.installs, 0) as installs,
           coalesce(i.paid_installs, 0) as paid_installs
    from spend s
    full join installs i
      on i.app_id = s.app_id and i.date = s.spend_date and i.network = s.network
     and i.campaign = s.campaign and i.country = s.country
), totals as (
    select app_id, date, coalesce(network, 'all') as network, coalesce(campaign, 'all') as campaign,
           coalesce(country, 'all') as country, sum(spend) as spend, sum(impressions) as impressions,
           sum(clicks) as clicks, sum(installs) as installs, sum(paid_installs) as paid_installs
    from joined
    group by grouping sets ((app_id, date, network, campaign, country), (app_id, date, network), (app_id, date))
), next as materialized (
    -- in the table's types, so the comparison below sees the values as stored
    select app_id, date, network, campaign, country, spend,
           impressions::bigint as impressions, clicks::bigint as clicks, installs::bigint as installs,
           paid_installs::bigint as paid_installs,
           case when spend > 0 and paid_installs > 0 then spend / paid_installs end as cpi,
           case when spend > 0 and installs > 0 then spend / installs end as blended_cpi,
           case when impressions > 0 then clicks::double precision / impressions end as ctr,
           (case when impressions > 0 then paid_installs * 1000.0 / impressions end)::double precision as ipm
    from totals
), changes as materialized (
    select t.stored_row, n.*
    from next n
    full join stored t
      on t.app_id = n.app_id and t.date = n.date and t.network = n.network and t.campaign = n.campaign
     and t.country = n.country
    where n.app_id is null or t.app_id is null
       or (n.spend, n.impressions, n.clicks, n.installs, n.paid_installs, n.cpi, n.blended_cpi, n.ctr, n.ipm)
          is distinct from (t.spend, t.impressions, t.clicks, t.installs, t.paid_installs, t.cpi, t.blended_cpi,
                            t.ctr, t.ipm)
), updated as (
    update fct_cpi t
    set spend = c.spend, impressions = c.impressions, clicks = c.clicks, installs = c.installs,
        paid_installs = c.paid_installs, cpi = c.cpi, blended_cpi = c.blended_cpi, ctr = c.ctr, ipm = c.ipm
    from changes c
    where t.ctid = c.stored_row and c.app_id is not null
), deleted as (
    delete from fct_cpi t
    using changes c
    where t.ctid = c.stored_row and c.app_id is null
)
insert into fct_cpi (app_id, date, network, campaign, country, spend, impressions, clicks, installs,
                     paid_installs, cpi, blended_cpi, ctr, ipm)
select app_id, date, network, campaign, country, spend, impressions, clicks, installs, paid_installs,
       cpi, blended_cpi, ctr, ipm
from changes
where stored_row is null;
