-- int_friction_screen_counts: counts every reached screen by its user's outcome class after a rebuild of
-- the friction tables (fold_reset emptied them; the folds refilled them from every raw row), and
-- records each outcome's class as counted. int_friction_screen_counts.fold.sql keeps both from then on.
-- Grain: int_friction_screen_counts one row per (app_id, screen, class);
-- int_friction_outcomes.counted_class. Reads: int_friction_outcomes, int_friction_apps,
-- int_friction_reached.
update int_friction_outcomes o
set counted_class = friction_outcome_class(o.completed, o.day1_to, o.returned_d1,
                                           (select a.data_through from int_friction_apps a where a.app_id = o.app_id));

insert into int_friction_screen_counts (app_id, screen, class, users)
select r.app_id, r.screen, o.counted_class, count(*)
from int_friction_reached r
join int_friction_outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
group by r.app_id, r.screen, o.counted_class;
