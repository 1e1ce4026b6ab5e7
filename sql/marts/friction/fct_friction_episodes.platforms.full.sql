-- fct_friction_episodes.platforms.full: after a rebuild of every session (session_events.full.sql,
-- which leaves the platform null), every episode takes the platform of its user's first install,
-- as scope_sessions.sql gives it to the episodes of an incremental run.
-- Grain: fct_friction_episodes rows updated. Reads: fct_friction_episodes, raw_installs.
with users as materialized (
    select distinct app_id, user_id from fct_friction_episodes
), first_platforms as materialized (
    select distinct on (i.app_id, i.user_id) i.app_id, i.user_id, i.platform
    from raw_installs i
    join users u on u.app_id = i.app_id and u.user_id = i.user_id
    order by i.app_id, i.user_id, i.installed_at
)
update fct_friction_episodes e
set platform = p.platform
from first_platforms p
where e.app_id = p.app_id and e.user_id = p.user_id
  and p.platform is not null
