-- int_user_facts.fold: updates the facts of the delta users outside delta_general_users from the
-- new days alone, then leaves only the general users in scope_installs (int_user_facts.sql
-- derives theirs from their state, scope_user_state.fold.sql). For these users the new days cannot
-- move the first open, the regular-user moment or the onboarding, hence neither the funnel's
-- first three steps; what they can move has a closed form: reinstalls (counted in
-- scope_installs) set the installs, opens in the regular window and invites in the k-factor
-- window add up, the last active day is the later one, the first purchase the earlier one, and
-- the funnel's purchase step is the earlier of the known one and the first new purchase inside
-- its window after the (unchanged) regular-user step. The new days and times are added to the
-- lists the facts keep.
-- Grain: int_user_facts one row per (app_id, user_id) updated in place, and the updated rows in
-- delta_new_facts (and in funnel_fact_changes when their funnel purchase step moved).
-- Reads: scope_installs, scope_user_activity (the new days summed per user, scope_user_activity.sql),
-- delta_general_users, delta_users, delta_old_facts, compute_settings. Writes delta_fact_changes
-- (a working table) on the way.
with settings as (
    select * from compute_settings where app_id = ''
), fast_users as (
    select si.app_id, si.user_id, si.installs
    from scope_installs si
    where not exists (
        select 1 from delta_general_users g where g.app_id = si.app_id and g.user_id = si.user_id)
)
insert into delta_fact_changes
select u.app_id, u.user_id, du.fact_row, u.installs, coalesce(a.regular_opens, 0), a.first_purchase_day,
       a.purchase_times[1], -- the lists are sorted: the first new purchase
       -- the first new purchase inside the funnel's window after its (unchanged) regular-user step
       case when cardinality(a.purchase_times) > 0 then (
           select min(t) from unnest(a.purchase_times) as t
           where t >= o.funnel_regular_at
             and t < o.installed_at + make_interval(days => s.purchase_window_days)) end,
       coalesce(a.invites_sent, 0), a.last_active_day, coalesce(a.active_days, '{}'),
       coalesce(a.purchase_days, '{}'), coalesce(a.regular_open_times, '{}'),
       coalesce(a.purchase_times, '{}')
from fast_users u
join delta_users du on du.app_id = u.app_id and du.user_id = u.user_id
join delta_old_facts o on o.app_id = u.app_id and o.user_id = u.user_id
cross join settings s
left join scope_user_activity a on a.app_id = u.app_id and a.user_id = u.user_id
where a.user_id is not null or u.installs <> o.installs
-- in the order of the rows, which the update below then visits page after page
order by du.fact_row;

-- Each row is found by its key, the changes in the order of the rows (delta_users.fact_row), so
-- the probes visit the table page after page: hashing the changes against a scan of every user's
-- facts read the whole table (1M rows) for 70k updates. Not by ctid: on Citus a row's ctid is
-- only unique within its shard, and Citus refuses a ctid in an update it plans.
set local enable_hashjoin = off;

with updated as (
    update int_user_facts f
    set installs = c.installs,
        regular_opens = f.regular_opens + c.regular_opens,
        first_purchase_day = least(f.first_purchase_day, c.first_purchase_day),
        first_purchase_at = least(f.first_purchase_at, c.first_purchase_at),
        funnel_purchase_at = least(f.funnel_purchase_at, c.funnel_purchase_at),
        invites_sent = f.invites_sent + c.invites_sent,
        last_active_day = greatest(f.last_active_day, c.last_active_day),
        -- the lists merged as merge_day_lists and merge_time_lists (migration 0049) do it, written
        -- out: PostgreSQL does not inline them (the sort in their last branch is a subquery), and
        -- a call cost about 2.7 us against 0.5 us here (355k rows: 0.97 s against 0.16-0.21 s)
        active_days = case
            when cardinality(c.active_days) = 0 then f.active_days
            when cardinality(f.active_days) = 0 or f.active_days[cardinality(f.active_days)] < c.active_days[1]
                then f.active_days || c.active_days
            else array(select distinct d from unnest(f.active_days || c.active_days) as d order by d) end,
        purchase_days = case
            when cardinality(c.purchase_days) = 0 then f.purchase_days
            when cardinality(f.purchase_days) = 0 or f.purchase_days[cardinality(f.purchase_days)] < c.purchase_days[1]
                then f.purchase_days || c.purchase_days
            else array(select distinct d from unnest(f.purchase_days || c.purchase_days) as d order by d) end,
        regular_open_times = case
            when cardinality(c.regular_open_times) = 0 then f.regular_open_times
            when cardinality(f.regular_open_times) = 0
                 or f.regular_open_times[cardinality(f.regular_open_times)] <= c.regular_open_times[1]
                then f.regular_open_times || c.regular_open_times
            else array(select t from unnest(f.regular_open_times || c.regular_open_times) as t order by t) end,
        purchase_times = case
            when cardinality(c.purchase_times) = 0 then f.purchase_times
            when cardinality(f.purchase_times) = 0 or f.purchase_times[cardinality(f.purchase_times)] <= c.purchase_times[1]
                then f.purchase_times || c.purchase_times
            else array(select t from unnest(f.purchase_times || c.purchase_times) as t order by t) end
    from delta_fact_changes c
    where f.app_id = c.app_id and f.user_id = c.user_id
    returning f.*
)
insert into delta_new_facts
select * from updated;

set local enable_hashjoin = on;

-- Of the funnel, only the purchase step can move here (see above): its users' funnel side, as it
-- was and as it is, goes to funnel_fact_changes.
with moved as (
    select n.app_id, n.user_id
    from delta_new_facts n
    join delta_old_facts o on o.app_id = n.app_id and o.user_id = n.user_id
    where n.funnel_purchase_at is distinct from o.funnel_purchase_at
)
insert into funnel_fact_changes
select f.sign, f.app_id, f.user_id, f.network, f.campaign, f.country, f.platform,
       date_part('epoch', f.funnel_open_at - f.installed_at),
       date_part('epoch', f.funnel_onboarded_at - f.funnel_open_at),
       date_part('epoch', f.funnel_regular_at - f.funnel_onboarded_at),
       date_part('epoch', f.funnel_purchase_at - f.funnel_regular_at)
from (
    select 1 as sign, n.* from delta_new_facts n join moved m on m.app_id = n.app_id and m.user_id = n.user_id
    union all
    select -1, o.* from delta_old_facts o join moved m on m.app_id = o.app_id and m.user_id = o.user_id
) f;

delete from scope_installs si
where not exists (
    select 1 from delta_general_users g where g.app_id = si.app_id and g.user_id = si.user_id);

-- Fresh statistics for what is left (the general users, a few thousand of the delta users): the
-- inviter lookup read every user's facts twice on the estimate of the whole set (0.38 s).
analyze scope_installs;
