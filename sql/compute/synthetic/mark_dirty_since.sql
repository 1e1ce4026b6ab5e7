-- synthetic/mark_dirty_since: marks dirty what a loader marks for rows at or after $2: the UTC
-- date of the first install of every user those rows touch, and the spend dates. Used by the
-- compute benchmark after adding a day.
-- Grain: one row per (app_id, cohort_date). Reads: raw_installs, raw_opens, raw_purchases,
-- raw_invites, raw_steps, raw_ad_spend. Parameters: $1 app, $2 timestamp.
insert into dirty_cohort_days (app_id, cohort_date)
select i.app_id, min(i.installed_at)::date
from raw_installs i
where i.app_id = $1 and i.user_id in (
    select user_id from raw_installs where app_id = $1 and installed_at >= $2::timestamptz
    union select user_id from raw_opens where app_id = $1 and opened_at >= $2::timestamptz
    union select user_id from raw_purchases where app_id = $1 and purchased_at >= $2::timestamptz
    union select user_id from raw_invites where app_id = $1 and sent_at >= $2::timestamptz
    union select user_id from raw_steps where app_id = $1 and occurred_at >= $2::timestamptz)
group by i.app_id, i.user_id
union
select app_id, spend_date from raw_ad_spend where app_id = $1 and spend_date >= $2::timestamptz::date
on conflict do nothing
