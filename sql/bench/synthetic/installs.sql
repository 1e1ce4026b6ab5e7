-- synthetic/installs: deterministic synthetic installs for tests and `funnel bench compute`
-- (set-based, no generator needed): users u<seed>_<n> spread evenly over the days, networks,
-- campaigns, countries and platforms from a hash of the user; about 8% are viral (referred by
-- the previous user) and 2% reinstall two days later.
-- Grain: one row per install. Reads: nothing. Parameters: $1 app, $2 users, $3 first date,
-- $4 days, $5 seed, $6 file_id (0: written outside any ingest file).
insert into raw_installs (event_id, app_id, user_id, installed_at, network, platform, country, campaign,
                          referrer_user_id, invite_id, file_id)
select 'i' || $5 || '_' || n || r.suffix, $1, 'u' || $5 || '_' || n,
       ($3::date + (n % $4))::timestamp at time zone 'UTC'
           + make_interval(secs => abs(hashtext('t' || $5 || '_' || n)) % 86000)
           + make_interval(days => r.later),
       case when h % 100 < 8 and n > 1 then 'organic'
            else (array['adnova', 'pixelreach', 'clickstorm', 'organic'])[1 + h % 4] end,
       case when h % 2 = 0 then 'ios' else 'android' end,
       (array['US', 'DE', 'JP'])[1 + (h / 7) % 3],
       case when h % 4 <> 3 then (array['c1', 'c2'])[1 + (h / 11) % 2] end,
       case when h % 100 < 8 and n > 1 then 'u' || $5 || '_' || (n - 1) end,
       null, $6::bigint
from generate_series(1, $2::integer) as n
cross join lateral (select abs(hashtext('n' || $5 || '_' || n)) as h) x
cross join lateral (
    select '' as suffix, 0 as later
    union all
    select 'r', 2 where x.h % 50 = 0 and (n % $4) + 2 < $4
) r
