-- scope_user_events.stream: every event the users' days are made of, for the client's pass over
-- the whole history (UserDaysTable), which joins them to the scope's installs itself: opens (kind
-- 1), attribution partners' retention rows (2), purchases (3), invites (4) and refunds (5: a
-- purchase row with a negative revenue, which nets its day's revenue and is no purchase), each with its
-- moment and its local date in the reporting time zone as days since 1970 (a retention row: its
-- day number instead). The same events as scope_user_days.sql reads, with the same bound on the
-- earliest moment (a day before the first install); the bound on each user's own install moment
-- is the client's, as is every day number.
-- Grain: one row per raw event from the bound on. Reads: raw_opens, raw_retention, raw_purchases,
-- raw_invites, scope_installs (the bound), compute_settings.
with settings as (
    select time_zone from compute_settings where app_id = ''
), bounds as (
    select min(installed_at) - interval '1 day' as first_at from scope_installs
)
select o.app_id, o.user_id, 1::bigint as kind, o.opened_at as event_at,
       ((timezone(s.time_zone, o.opened_at))::date - date '1970-01-01')::bigint as day
from raw_opens o
cross join settings s
where o.opened_at >= (select first_at from bounds)
union all
select r.app_id, r.user_id, 2, r.reported_at, r.day::bigint
from raw_retention r
where r.reported_at >= (select first_at from bounds) and r.day >= 0
union all
select p.app_id, p.user_id, case when p.revenue < 0 then 5 else 3 end, p.purchased_at,
       ((timezone(s.time_zone, p.purchased_at))::date - date '1970-01-01')::bigint
from raw_purchases p
cross join settings s
where p.purchased_at >= (select first_at from bounds)
union all
select v.app_id, v.user_id, 4, v.sent_at,
       ((timezone(s.time_zone, v.sent_at))::date - date '1970-01-01')::bigint
from raw_invites v
cross join settings s
where v.sent_at >= (select first_at from bounds)
