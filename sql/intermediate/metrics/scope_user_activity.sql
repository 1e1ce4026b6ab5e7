-- scope_user_activity: sums up each user's days into their activity (scope_user_activity): first open,
-- opens on days 1..D (and their times), first purchase day, last active day (0 without any),
-- invites sent within the k-factor window, the days they were active and bought on, and their
-- purchase times (each list sorted). One statement for both paths: a rebuild sums every day of
-- the scope's users (scope_user_state.sql turns it into their state), a fold sums the days
-- its window adds (scope_user_state.fold.sql and int_user_facts.fold.sql add them to the stored
-- state).
-- A template: the engine fills {{days}} with scope_user_days or delta_new_days (two fixed names
-- in code, never input).
-- Grain: one row per (app_id, user_id) with at least one day. Reads: {{days}},
-- compute_settings.
truncate scope_user_activity;

with settings as (
    select * from compute_settings where app_id = ''
), per_user as (
    select d.app_id, d.user_id,
           min(d.first_open_at) as first_open_at,
           coalesce(sum(d.opens) filter (where d.day_n between 1 and s.regular_days), 0) as regular_opens,
           min(d.day_n) filter (where d.purchases > 0) as first_purchase_day,
           coalesce(max(d.day_n) filter (where d.active), 0) as last_active_day,
           coalesce(sum(d.invites) filter (where d.day_n < s.kfactor_window_days), 0) as invites_sent,
           coalesce(array_agg(d.day_n order by d.day_n) filter (where d.active), '{}') as active_days,
           coalesce(array_agg(d.day_n order by d.day_n) filter (where d.purchases > 0), '{}') as purchase_days
    from {{days}} d
    cross join settings s
    group by d.user_id, d.app_id
), open_lists as (
    -- the two lists read only the days with times (a day without any has a null list): most days
    -- have none, and unnesting every day's took 0.8 s more on 2.2M days
    select d.app_id, d.user_id, array_agg(t order by t) as times
    from {{days}} d
    cross join lateral unnest(d.regular_open_times) as t
    where d.regular_open_times is not null
    group by d.user_id, d.app_id
), purchase_lists as (
    select d.app_id, d.user_id, array_agg(t order by t) as times
    from {{days}} d
    cross join lateral unnest(d.purchase_times) as t
    where d.purchase_times is not null
    group by d.user_id, d.app_id
)
insert into scope_user_activity
select pu.app_id, pu.user_id, pu.first_open_at, pu.regular_opens, pu.first_purchase_day, pu.last_active_day,
       pu.invites_sent, pu.active_days, pu.purchase_days, coalesce(ol.times, '{}'), coalesce(pl.times, '{}')
from per_user pu
left join open_lists ol on ol.app_id = pu.app_id and ol.user_id = pu.user_id
left join purchase_lists pl on pl.app_id = pu.app_id and pl.user_id = pu.user_id;

analyze scope_user_activity (app_id, user_id);
