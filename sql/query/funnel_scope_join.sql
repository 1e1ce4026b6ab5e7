-- funnel_scope_join: a fragment of funnel_events.sql for compute: only the users of the install
-- cohorts being computed (scope_installs, a session temporary table of compute).
-- Grain: one row per scope user. Reads: scope_installs.
join scope_installs si on si.app_id = e.app_id and si.user_id = e.user_id
