-- delta_user_days: folds the window's rows into the stored days of the delta users. Their
-- days as they stood are kept aside (delta_old_days; their facts are in delta_old_facts) so the
-- rollups can take the old contribution out; scope_installs gets their unchanged first install
-- from their facts, with the window's reinstalls counted; the days the window touches (delta_new_days, by the rules of int_scope_user_days) are
-- added into int_user_days, and scope_user_days and delta_fast_days get the merged days.
--
-- Most delta users' facts follow from the new days alone (delta_fast_facts.sql): a later open,
-- purchase or invite only moves counters, minimums and maximums. The general users are those
-- whose facts need their whole history: a first open earlier than the one known (the funnel's
-- first step moves), regular-window opens that may change who is regular and when, or new
-- onboarding steps. Only for them are all stored days read (and their onboarding times); for
-- the others only the stored days the rollups compare: the days the window touches, the first
-- purchase day, and the days of the retention brackets the new days fall in. So a fold costs
-- what the new rows hold, not the users' history.
-- Grain: scope_user_days one row per (app_id, user_id, day_n) of the general users (all their
-- days), delta_fast_days the same for the others (the compared days); scope_installs one row per
-- delta user; scope_onboarding one row per general user. Reads: delta_users, delta_old_facts,
-- int_user_days, compute_window, raw_installs, raw_opens, raw_retention, raw_purchases, raw_invites,
-- raw_steps, currency_rates, compute_settings. Rows are found between the lowest and highest
-- file_id of the window (index on file_id). The working tables are analyzed on their join keys
-- only: row counts and key statistics are what the plans need, and sampling the array columns
-- cost 0.1-0.2 s a table.
truncate scope_installs;
truncate scope_user_days;
truncate scope_onboarding;
truncate delta_old_days;
truncate delta_new_days;
truncate delta_general_users;
truncate delta_fast_days;

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

-- Probed per user, in key order (offset 0 keeps the planner from turning this into a scan of
-- every stored day).
insert into delta_old_days
select d.*
from (select * from delta_general_users order by app_id, user_id) g
cross join lateral (
    select * from int_user_days u where u.app_id = g.app_id and u.user_id = g.user_id offset 0
) d;

with brackets as (
    select b.bracket
    from compute_settings s
    cross join lateral unnest(s.brackets) as b (bracket)
    where s.app_id = ''
), fast_new_days as (
    select n.app_id, n.user_id, n.day_n
    from delta_new_days n
    where not exists (
        select 1 from delta_general_users g where g.app_id = n.app_id and g.user_id = n.user_id)
), compared (app_id, user_id, first_day, last_day) as (
    select app_id, user_id, day_n, day_n from fast_new_days
    union
    select o.app_id, o.user_id, o.first_purchase_day, o.first_purchase_day
    from delta_old_facts o
    where o.first_purchase_day is not null
      and not exists (
          select 1 from delta_general_users g where g.app_id = o.app_id and g.user_id = o.user_id)
    union
    select f.app_id, f.user_id, lower(b.bracket), upper(b.bracket) - 1
    from fast_new_days f
    join brackets b on b.bracket @> f.day_n
)
insert into delta_old_days
select distinct on (d.app_id, d.user_id, d.day_n) d.*
-- in key order, so consecutive probes share index pages (0.86 -> 0.65 s for 97k probes at 1M users)
from (select * from compared order by app_id, user_id, first_day) c
join int_user_days d
  on d.app_id = c.app_id and d.user_id = c.user_id and d.day_n between c.first_day and c.last_day;

analyze delta_old_days (app_id, user_id, day_n);

-- A stored day and a new day with the same key are merged (sums, the earlier first open, the
-- later last event, the time lists one after the other); the other days, nearly all of them (125
-- of 134k at 1M users), pass through. A join pairs them: grouping every day with its array
-- aggregates took 0.6 s there.
with merged as (
    select coalesce(o.app_id, n.app_id) as app_id, coalesce(o.user_id, n.user_id) as user_id,
           coalesce(o.day_n, n.day_n) as day_n,
           coalesce(o.opens, 0) + coalesce(n.opens, 0) as opens,
           coalesce(o.active, false) or coalesce(n.active, false) as active,
           coalesce(o.revenue_usd, 0) + coalesce(n.revenue_usd, 0) as revenue_usd,
           coalesce(o.purchases, 0) + coalesce(n.purchases, 0) as purchases,
           coalesce(o.invites, 0) + coalesce(n.invites, 0) as invites,
           least(o.first_open_at, n.first_open_at) as first_open_at,
           array_cat(o.regular_open_times, n.regular_open_times) as regular_open_times,
           array_cat(o.purchase_times, n.purchase_times) as purchase_times,
           greatest(o.last_event_at, n.last_event_at) as last_event_at,
           exists (select 1 from delta_general_users g
                   where g.app_id = coalesce(o.app_id, n.app_id) and g.user_id = coalesce(o.user_id, n.user_id)) as general
    from delta_old_days o
    full join delta_new_days n on n.app_id = o.app_id and n.user_id = o.user_id and n.day_n = o.day_n
), general_days as (
    insert into scope_user_days
    select app_id, user_id, day_n, opens, active, revenue_usd, purchases, invites, first_open_at,
           regular_open_times, purchase_times, last_event_at
    from merged where general
)
insert into delta_fast_days
select app_id, user_id, day_n, opens, active, revenue_usd, purchases, invites, first_open_at,
       regular_open_times, purchase_times, last_event_at
from merged where not general;

-- The new days go into int_user_days: a day already stored (its row is in delta_old_days, which
-- holds every stored day of the general users and the days the fast users' new days fall on) is
-- updated, the others inserted without a conflict probe (an upsert searches the index twice per
-- row: 0.85 s for 87k days at 1M users, against 0.65 s for the insert and under 0.08 s for the
-- update).
update int_user_days as d
set opens = d.opens + n.opens,
    active = d.active or n.active,
    revenue_usd = d.revenue_usd + n.revenue_usd,
    purchases = d.purchases + n.purchases,
    invites = d.invites + n.invites,
    first_open_at = least(d.first_open_at, n.first_open_at),
    regular_open_times = array_cat(d.regular_open_times, n.regular_open_times),
    purchase_times = array_cat(d.purchase_times, n.purchase_times),
    last_event_at = greatest(d.last_event_at, n.last_event_at)
from delta_new_days n
join delta_old_days o on o.app_id = n.app_id and o.user_id = n.user_id and o.day_n = n.day_n
where d.app_id = n.app_id and d.user_id = n.user_id and d.day_n = n.day_n;

insert into int_user_days
select n.* from delta_new_days n
where not exists (
    select 1 from delta_old_days o where o.app_id = n.app_id and o.user_id = n.user_id and o.day_n = n.day_n)
order by n.app_id, n.user_id, n.day_n;

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

analyze scope_user_days (app_id, user_id, day_n);
analyze delta_fast_days (app_id, user_id, day_n);
