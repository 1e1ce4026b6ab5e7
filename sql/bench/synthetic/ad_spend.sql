-- synthetic/ad_spend: spend per (date, paid network, campaign, country) in [$2, $3] at a fixed
-- CPI per network (adnova 1.60, pixelreach 2.30, clickstorm 3.80) with impressions and clicks.
-- Grain: one row per (app, date, network, campaign, country), no hour. Reads: raw_installs.
-- Parameters: $1 app, $2 from, $3 to, $4 file_id.
insert into raw_ad_spend (app_id, spend_date, network, campaign, country, spend, currency, impressions,
                          clicks, file_id)
select $1, i.installed_at::date, i.network, coalesce(i.campaign, ''), coalesce(i.country, ''),
       count(*) * case i.network when 'adnova' then 1.6 when 'pixelreach' then 2.3 else 3.8 end,
       'USD', count(*) * 250, count(*) * 4, $4::bigint
from raw_installs i
where i.app_id = $1 and i.network <> 'organic' and i.referrer_user_id is null
  and i.event_id not like '%r'
  and i.installed_at >= $2::date::timestamp at time zone 'UTC'
  and i.installed_at < ($3::date + 1)::timestamp at time zone 'UTC'
group by i.installed_at::date, i.network, coalesce(i.campaign, ''), coalesce(i.country, '')
on conflict (app_id, spend_date, network, campaign, country, adset, creative, hour)
do update set spend = excluded.spend, file_id = excluded.file_id
