-- fct_friction_episodes.delete_scope: removes the episodes of the sessions about to be rebuilt.
-- Grain: fct_friction_episodes rows. Reads: friction_scope_sessions.
delete from fct_friction_episodes e
using friction_scope_sessions s
where e.app_id = s.app_id and e.user_id = s.user_id and e.session_id = s.session_id;
