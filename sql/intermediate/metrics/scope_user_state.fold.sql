-- scope_user_state.fold: which delta users need their facts derived again (delta_general_users) and
-- the state they are derived from (scope_user_state); scope_onboarding.sql then finds their
-- onboarding times. The others' facts follow from the new days alone (int_user_facts.fold.sql):
-- a later open, purchase or invite only moves counters, minimums and maximums and adds to the
-- lists the facts keep. The general users are those whose default-funnel steps may move: a first
-- open earlier than the one known, regular-window opens that may change who is regular and when,
-- or new onboarding steps. Their state is their stored one (delta_old_facts) with the new days'
-- activity (scope_user_activity, scope_user_activity.sql over delta_new_days) added, and
-- int_user_facts.sql derives their facts from it.
-- Grain: one row per general user in each. Reads: scope_user_activity, delta_old_facts,
-- delta_users, compute_window, raw_steps.
truncate delta_general_users;
truncate scope_user_state;

-- The lists are sorted: their first element is the earliest new time.
insert into delta_general_users (app_id, user_id)
select a.app_id, a.user_id
from scope_user_activity a
join delta_old_facts o on o.app_id = a.app_id and o.user_id = a.user_id
where a.first_open_at < o.first_open_at
   or (o.first_open_at is null and a.first_open_at is not null)
   or (cardinality(a.regular_open_times) > 0 and (o.regular_at is null or a.regular_open_times[1] <= o.regular_at))
union
select st.app_id, st.user_id
from raw_steps st
join delta_users u on u.app_id = st.app_id and u.user_id = st.user_id
where st.file_id between (select min(file_id) from compute_window)
          and (select max(file_id) from compute_window)
  and st.file_id in (select file_id from compute_window);

analyze delta_general_users;

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
left join scope_user_activity a on a.app_id = g.app_id and a.user_id = g.user_id;
