-- int_friction_hits: derives int_friction_hits (migration 0053) again from every episode, after a run
-- that rebuilt the outcomes (every class may have moved); int_friction_hits.fold.sql keeps it otherwise.
-- Grain: one row per (app_id, screen, friction_type, user_id) with an episode. Reads:
-- fct_friction_episodes, int_friction_outcomes.
truncate int_friction_hits;

insert into int_friction_hits
select distinct on (e.app_id, e.screen, e.friction_type, e.user_id)
       e.app_id, e.screen, e.friction_type, e.user_id, e.occurred_at, e.input_mode, e.orientation,
       e.platform, o.counted_class
from fct_friction_episodes e
left join int_friction_outcomes o on o.app_id = e.app_id and o.user_id = e.user_id
order by e.app_id, e.screen, e.friction_type, e.user_id, e.occurred_at, e.session_id, e.input_mode,
         e.orientation;
