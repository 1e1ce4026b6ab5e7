-- int_scope_user_state: sums up each scope user's days into what their facts are derived from
-- (int_user_facts.sql) and what a later fold needs (see scope_user_state in temp_tables.sql):
-- first open, opens on days 1..D (and their times), first purchase day, last active day
-- (0 without any), invites sent within the k-factor window, the days they were active and bought
-- on, and their purchase times. A user without days gets zeros and empty lists.
-- Grain: one row per (app_id, user_id) of scope_installs. Reads: scope_installs, scope_user_days,
-- compute_settings.
truncate scope_user_state;

with settings as (
    select * from compute_settings where app_id = ''
), per_user as (
    select d.app_id, d.user_id,
           min(d.first_open_at) as first_open_at,
           coalesce(sum(d.opens) filter (where d.day_n between 1 and s.regular_days), 0) as regular_opens,
           min(d.day_n) filter (where d.purchases > 0) as first_purchase_day,
           coalesce(max(d.day_n) filter (where d.active), 0) as last_active_day,
           coalesce(sum(d.invites) filter (where d.day_n < s.kfactor_window_days), 0) as invites_sent,
           array_agg(d.day_n order by d.day_n) filter (where d.active) as active_days,
           array_agg(d.day_n order by d.day_n) filter (where d.purchases > 0) as purchase_days
    from scope_user_days d
    cross join settings s
    group by d.user_id, d.app_id
), open_lists as (
    select d.app_id, d.user_id, array_agg(t order by t) as times
    from scope_user_days d
    cross join lateral unnest(d.regular_open_times) as t
    group by d.user_id, d.app_id
), purchase_lists as (
    select d.app_id, d.user_id, array_agg(t order by t) as times
    from scope_user_days d
    cross join lateral unnest(d.purchase_times) as t
    group by d.user_id, d.app_id
)
insert into scope_user_state
select si.app_id, si.user_id, pu.first_open_at, coalesce(pu.regular_opens, 0), pu.first_purchase_day,
       coalesce(pu.last_active_day, 0), coalesce(pu.invites_sent, 0), coalesce(pu.active_days, '{}'),
       coalesce(pu.purchase_days, '{}'), coalesce(ol.times, '{}'), coalesce(pl.times, '{}')
from scope_installs si
left join per_user pu on pu.app_id = si.app_id and pu.user_id = si.user_id
left join open_lists ol on ol.app_id = si.app_id and ol.user_id = si.user_id
left join purchase_lists pl on pl.app_id = si.app_id and pl.user_id = si.user_id;
