-- scope_user_state: the state each scope user's facts are derived from (int_user_facts.sql)
-- and a later fold adds to (see scope_user_state in scope_tables.sql): their activity summed over
-- all their days (scope_user_activity, scope_user_activity.sql over scope_user_days). A user without
-- days gets no first open, zeros and empty lists.
-- Grain: one row per (app_id, user_id) of scope_installs. Reads: scope_installs,
-- scope_user_activity.
truncate scope_user_state;

insert into scope_user_state
select si.app_id, si.user_id, a.first_open_at, coalesce(a.regular_opens, 0), a.first_purchase_day,
       coalesce(a.last_active_day, 0), coalesce(a.invites_sent, 0), coalesce(a.active_days, '{}'),
       coalesce(a.purchase_days, '{}'), coalesce(a.regular_open_times, '{}'), coalesce(a.purchase_times, '{}')
from scope_installs si
left join scope_user_activity a on a.app_id = si.app_id and a.user_id = si.user_id;
