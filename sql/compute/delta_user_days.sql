-- delta_user_days: what the window's rows add to the days of the delta users (delta_new_days,
-- by the rules of int_scope_user_days), with their installs (scope_installs: their unchanged first
-- install from their facts, with the window's reinstalls counted), and which of them need their
-- facts derived again (delta_general_users), with the state those are derived from.
--
-- Most delta users' facts follow from the new days alone (delta_fast_facts.sql): a later open,
-- purchase or invite only moves counters, minimums and maximums and adds to the lists the facts
-- keep. The general users are those whose default-funnel steps may move: a first open earlier
-- than the one known, regular-window opens that may change who is regular and when, or new
-- onboarding steps. Their state (scope_user_state) is their stored one with the new days added,
-- and int_user_facts.sql derives their facts from it with their onboarding times
-- (scope_onboarding). Nothing reads the users' earlier rows: a fold costs what the new rows hold.
-- Grain: delta_new_days one row per (app_id, user_id, day_n) the window touches; scope_installs
-- one row per delta user; scope_user_state and scope_onboarding one row per general user.
-- Reads: delta_users, delta_old_facts, compute_window, raw_installs, raw_opens, raw_retention,
-- raw_purchases, raw_invites, raw_steps, currency_rates, compute_settings. Rows are found between
-- the lowest and highest file_id of the window (index on file_id). The working tables are
-- analyzed on their join keys only: row counts and key statistics are what the plans need, and
-- sampling the array columns cost 0.1-0.2 s a table.
truncate scope_installs;
truncate scope_user_days;
truncate scope_user_state;
truncate scope_onboarding;
truncate delta_new_days;
truncate delta_general_users;

analyze delta_old_facts (app_id, user_id);

-- Their installs as they stand, plus the window's reinstalls (every window install of a delta
-- user is later than their first: an earlier one put their cohort in the scope).
with reinstalls as (
    select i.app_id, i.user_id, count(*) as installs
    from raw_installs i
    join delta_users u on u.app_id = i.app_id and u.user_id = i.user_id
    where i.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and i.file_id in (select file_id from compute_window)
    group by i.app_id, i.user_id
)
insert into scope_installs
select o.app_id, o.user_id, o.installed_at, o.cohort_date, o.network, o.campaign, o.country, o.platform,
       o.referrer_user_id, o.invite_id, o.installs + coalesce(r.installs, 0)
from delta_old_facts o
left join reinstalls r on r.app_id = o.app_id and r.user_id = o.user_id;

analyze scope_installs (app_id, user_id, referrer_user_id, invite_id);

with settings as (
    select * from compute_settings where app_id = ''
), events (app_id, user_id, day_n, opens, active, revenue_usd, purchases, invites, first_open_at,
            regular_open_times, purchase_times, last_event_at) as (
    select o.app_id, o.user_id, x.day_n, 1, true, 0, 0, 0, o.opened_at,
           case when x.day_n between 1 and s.regular_days then array[o.opened_at] end, null::timestamptz[],
           o.opened_at
    from raw_opens o
    join scope_installs si on si.app_id = o.app_id and si.user_id = o.user_id
    cross join settings s
    cross join lateral (select cohort_day_number(o.opened_at, si.installed_at, si.cohort_date, s.time_zone,
                                                 s.day_rule) as day_n) x
    where o.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and o.file_id in (select file_id from compute_window)
      and o.opened_at >= si.installed_at
    union all
    select r.app_id, r.user_id, r.day, 0, true, 0, 0, 0, null, null, null, r.reported_at
    from raw_retention r
    join scope_installs si on si.app_id = r.app_id and si.user_id = r.user_id
    where r.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and r.file_id in (select file_id from compute_window)
      and r.day >= 0
    union all
    select p.app_id, p.user_id,
           cohort_day_number(p.purchased_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           0, false, p.revenue * coalesce(cr.usd_per_unit, 0) * s.revenue_share, 1, 0, null, null,
           array[p.purchased_at], p.purchased_at
    from raw_purchases p
    join scope_installs si on si.app_id = p.app_id and si.user_id = p.user_id
    left join currency_rates cr on cr.currency = p.currency
    cross join settings s
    where p.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and p.file_id in (select file_id from compute_window)
      and p.purchased_at >= si.installed_at
    union all
    select v.app_id, v.user_id,
           cohort_day_number(v.sent_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           0, false, 0, 0, 1, null, null, null, v.sent_at
    from raw_invites v
    join scope_installs si on si.app_id = v.app_id and si.user_id = v.user_id
    cross join settings s
    where v.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and v.file_id in (select file_id from compute_window)
      and v.sent_at >= si.installed_at
)
insert into delta_new_days
select e.app_id, e.user_id, e.day_n, sum(e.opens), bool_or(e.active), sum(e.revenue_usd), sum(e.purchases),
       sum(e.invites), min(e.first_open_at), array_cat_agg(e.regular_open_times), array_cat_agg(e.purchase_times),
       max(e.last_event_at)
from events e
where e.day_n >= 0
group by e.app_id, e.user_id, e.day_n;

analyze delta_new_days (app_id, user_id, day_n);

with new_regular_opens as (
    select n.app_id, n.user_id, t
    from delta_new_days n
    cross join lateral unnest(n.regular_open_times) as t
)
insert into delta_general_users (app_id, user_id)
select n.app_id, n.user_id
from delta_new_days n
join delta_old_facts o on o.app_id = n.app_id and o.user_id = n.user_id
group by n.app_id, n.user_id, o.first_open_at
having min(n.first_open_at) < o.first_open_at
    or (o.first_open_at is null and min(n.first_open_at) is not null)
union
select o.app_id, o.user_id
from new_regular_opens r
join delta_old_facts o on o.app_id = r.app_id and o.user_id = r.user_id
where o.regular_at is null or r.t <= o.regular_at
union
select st.app_id, st.user_id
from raw_steps st
join delta_users u on u.app_id = st.app_id and u.user_id = st.user_id
where st.file_id between (select min(file_id) from compute_window)
          and (select max(file_id) from compute_window)
  and st.file_id in (select file_id from compute_window);

analyze delta_general_users;

-- The general users' state: the stored one (delta_old_facts) with their new days added, as
-- int_scope_user_state.sql sums up a rebuilt user's days.
with settings as (
    select * from compute_settings where app_id = ''
), new_activity as (
    select n.app_id, n.user_id,
           min(n.first_open_at) as first_open_at,
           coalesce(sum(n.opens) filter (where n.day_n between 1 and s.regular_days), 0) as regular_opens,
           min(n.day_n) filter (where n.purchases > 0) as first_purchase_day,
           max(n.day_n) filter (where n.active) as last_active_day,
           coalesce(sum(n.invites) filter (where n.day_n < s.kfactor_window_days), 0) as invites_sent,
           coalesce(array_agg(n.day_n order by n.day_n) filter (where n.active), '{}') as active_days,
           coalesce(array_agg(n.day_n order by n.day_n) filter (where n.purchases > 0), '{}') as purchase_days,
           coalesce((select array_agg(t order by t) from unnest(array_cat_agg(n.regular_open_times)) as t), '{}')
               as regular_open_times,
           coalesce((select array_agg(t order by t) from unnest(array_cat_agg(n.purchase_times)) as t), '{}')
               as purchase_times
    from delta_new_days n
    join delta_general_users g on g.app_id = n.app_id and g.user_id = n.user_id
    cross join settings s
    group by n.app_id, n.user_id
)
insert into scope_user_state
select o.app_id, o.user_id,
       least(o.first_open_at, a.first_open_at),
       o.regular_opens + coalesce(a.regular_opens, 0),
       least(o.first_purchase_day, a.first_purchase_day),
       greatest(o.last_active_day, a.last_active_day),
       o.invites_sent + coalesce(a.invites_sent, 0),
       merge_day_lists(o.active_days, coalesce(a.active_days, '{}')),
       merge_day_lists(o.purchase_days, coalesce(a.purchase_days, '{}')),
       merge_time_lists(o.regular_open_times, coalesce(a.regular_open_times, '{}')),
       merge_time_lists(o.purchase_times, coalesce(a.purchase_times, '{}'))
from delta_general_users g
join delta_old_facts o on o.app_id = g.app_id and o.user_id = g.user_id
left join new_activity a on a.app_id = g.app_id and a.user_id = g.user_id;

-- Probed per user through raw_steps_by_user (offset 0 keeps the planner from scanning every step
-- row: 0.6 s at 700k steps for 17k users, against 0.1 s probed).
insert into scope_onboarding
select g.app_id, g.user_id, array_agg(st.occurred_at order by st.occurred_at)
from delta_general_users g
join scope_installs si on si.app_id = g.app_id and si.user_id = g.user_id
cross join (select onboarding_step from compute_settings where app_id = '') s
cross join lateral (
    select x.occurred_at from raw_steps x
    where x.app_id = g.app_id and x.user_id = g.user_id and x.step = s.onboarding_step
      and x.occurred_at >= si.installed_at
    offset 0
) st
group by g.app_id, g.user_id;
