-- synthetic/events: opens (one or two per active day), purchases (about 4% of active days),
-- invites (about 3%) and onboarding completion (70% of installs) for the rows of syn_active.
-- Grain: one row per event. Reads: syn_active. Parameters: $1 app, $2 file_id.
with opens as (
    insert into raw_opens (event_id, app_id, user_id, opened_at, session_seconds, file_id)
    select 'o' || a.user_id || '_' || a.day || '_' || k, $1, a.user_id,
           case when a.n = 0 then a.installed_at + make_interval(mins => 5 + k * 30)
                else a.day::timestamp at time zone 'UTC' + make_interval(secs => (a.h / 3 + k * 3000) % 80000) end,
           60, $2::bigint
    from syn_active a
    cross join lateral generate_series(1, 1 + (a.h % 3 = 0)::integer) as k
    returning 1
), purchases as (
    insert into raw_purchases (event_id, app_id, user_id, purchased_at, revenue, currency, file_id)
    select 'p' || a.user_id || '_' || a.day, $1, a.user_id,
           case when a.n = 0 then a.installed_at + interval '20 minutes'
                else a.day::timestamp at time zone 'UTC' + make_interval(secs => a.h % 80000) end,
           0.99 + (a.h / 100) % 20, case when a.h % 5 = 0 then 'EUR' else 'USD' end, $2::bigint
    from syn_active a
    where (a.h / 13) % 100 < 4
    returning 1
), invites as (
    insert into raw_invites (event_id, app_id, user_id, invite_id, sent_at, channel, file_id)
    select 'v' || a.user_id || '_' || a.day, $1, a.user_id, 'inv' || a.user_id || '_' || a.day,
           case when a.n = 0 then a.installed_at + interval '40 minutes'
                else a.day::timestamp at time zone 'UTC' + make_interval(secs => a.h % 80000) end,
           'sms', $2::bigint
    from syn_active a
    where (a.h / 17) % 100 < 3
    returning 1
), steps as (
    insert into raw_steps (event_id, app_id, user_id, occurred_at, step, screen, file_id)
    select 's' || a.user_id, $1, a.user_id, a.installed_at + interval '10 minutes', 'onboarding_complete',
           'welcome', $2::bigint
    from syn_active a
    where a.n = 0 and (a.h / 19) % 10 < 7
    returning 1
)
select (select count(*) from opens) + (select count(*) from purchases) + (select count(*) from invites)
       + (select count(*) from steps)
