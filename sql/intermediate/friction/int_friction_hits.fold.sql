-- int_friction_hits.fold: brings int_friction_hits (migration 0053) up to date after the run's episodes are
-- rebuilt: the users whose sessions the run rescanned (friction_scope_sessions) are derived again
-- from all their episodes, first episode per (screen, friction type) by time; then every user's
-- row takes the class their outcome is counted under: only the users whose class moved are
-- touched (friction_class_changes). After a rebuild of the outcomes int_friction_hits.sql derives every
-- row instead. fct_friction_episodes.platforms.sql moves the platform.
-- Grain: one row per (app_id, screen, friction_type, user_id) with an episode. Reads:
-- friction_scope_sessions, fct_friction_episodes, int_friction_outcomes, friction_class_changes.
delete from int_friction_hits h
using (select distinct app_id, user_id from friction_scope_sessions) r
where h.app_id = r.app_id and h.user_id = r.user_id;

insert into int_friction_hits
select distinct on (e.app_id, e.screen, e.friction_type, e.user_id)
       e.app_id, e.screen, e.friction_type, e.user_id, e.occurred_at, e.input_mode, e.orientation,
       e.platform, o.counted_class
from (select distinct app_id, user_id from friction_scope_sessions) r
join fct_friction_episodes e on e.app_id = r.app_id and e.user_id = r.user_id
left join int_friction_outcomes o on o.app_id = e.app_id and o.user_id = e.user_id
order by e.app_id, e.screen, e.friction_type, e.user_id, e.occurred_at, e.session_id, e.input_mode,
         e.orientation;

update int_friction_hits h
set counted_class = c.new_class
from friction_class_changes c
where h.app_id = c.app_id and h.user_id = c.user_id
  and h.counted_class is distinct from c.new_class;
