-- fct_cpi_hourly: per paid network, CPI by hour of day over the days whose ad_spend rows carry an
-- hour (docs/metrics.md, "CPI by hour of day"). An hour's spend is the USD sum of the hour rows
-- at the rate of the spend date (spend without a rate counts as 0, as in int_spend_day_rollup); its paid
-- installs are the paid first installs of the same (date, network, campaign, country) keys whose
-- install time, in the reporting time zone, falls in that hour. cpi = spend / paid installs (NULL
-- when either is 0); cpi_index = cpi over the network's CPI across all its hours. Rebuilt whole on
-- every run.
-- Grain: one row per (app_id, network, hour). Reads: raw_ad_spend, currency_rate_days, currency_rate_spans,
-- int_user_facts, compute_settings. Writes: fct_cpi_hourly.
delete from fct_cpi_hourly;

with settings as (
    select time_zone from compute_settings where app_id = ''
), hour_rows as (
    select a.app_id, a.network, a.campaign, a.country, a.spend_date, a.hour,
           a.spend * coalesce(cd.usd_per_unit, case when a.spend_date < cs.first_day then cs.before_usd else cs.after_usd end, 0) as spend
    from raw_ad_spend a
    left join currency_rate_spans cs on cs.currency = a.currency
    left join currency_rate_days cd on cd.currency = a.currency and cd.day = a.spend_date
    where a.hour is not null
), keys as (
    select distinct app_id, network, campaign, country, spend_date from hour_rows
), spend as (
    select app_id, network, hour, count(distinct spend_date) as days, sum(spend) as spend
    from hour_rows group by app_id, network, hour
), installs as (
    select f.app_id, f.network, extract(hour from timezone(s.time_zone, f.installed_at))::smallint as hour,
           count(*) as paid_installs
    from int_user_facts f
    cross join settings s
    join keys k on k.app_id = f.app_id and k.network = f.network and k.campaign = f.campaign
               and k.country = f.country and k.spend_date = f.cohort_date
    where f.acquisition = 'paid'
    group by 1, 2, 3
), joined as (
    select coalesce(s.app_id, i.app_id) as app_id, coalesce(s.network, i.network) as network,
           coalesce(s.hour, i.hour) as hour, coalesce(s.days, 0) as days, coalesce(s.spend, 0) as spend,
           coalesce(i.paid_installs, 0) as paid_installs
    from spend s
    full join installs i on i.app_id = s.app_id and i.network = s.network and i.hour = s.hour
), overall as (
    select app_id, network, sum(spend) / nullif(sum(paid_installs), 0) as cpi
    from joined group by app_id, network
)
insert into fct_cpi_hourly (app_id, network, hour, days, spend, paid_installs, cpi, cpi_index)
select j.app_id, j.network, j.hour, j.days, j.spend, j.paid_installs,
       case when j.spend > 0 and j.paid_installs > 0 then j.spend / j.paid_installs end,
       case when j.spend > 0 and j.paid_installs > 0 and o.cpi > 0
            then (j.spend / j.paid_installs / o.cpi)::double precision end
from joined j
join overall o on o.app_id = j.app_id and o.network = j.network;
