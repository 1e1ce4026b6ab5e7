-- int_friction_screen_counts: counts every reached screen by its user's outcome class after a rebuild of
-- the friction tables (the friction reset emptied them; the folds refilled them from every raw row,
-- each outcome with its class as counted, int_friction_outcomes.sql).
-- int_friction_screen_counts.fold.sql keeps the counts and the classes from then on.
-- Grain: int_friction_screen_counts one row per (app_id, screen, class). Reads: int_friction_outcomes,
-- int_friction_reached.
insert into int_friction_screen_counts (app_id, screen, class, users)
select r.app_id, r.screen, o.counted_class, count(*)
from int_friction_reached r
join int_friction_outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
group by r.app_id, r.screen, o.counted_class;
