-- int_friction_screen_counts: counts every reached screen by its user's outcome class after a rebuild of
-- the friction tables (the friction reset emptied them; the folds refilled them from every raw row), and
-- records each outcome's class as counted. int_friction_screen_counts.fold.sql keeps both from then on.
-- Grain: int_friction_screen_counts one row per (app_id, screen, class);
-- int_friction_outcomes.counted_class. Reads: int_friction_outcomes, int_friction_apps,
-- int_friction_reached.
-- The apps' last data days are gathered first (materialized) and joined by user to each outcome:
-- Citus refuses an update of the distributed outcomes whose subquery reads int_friction_apps on
-- the coordinator. An app without a row there gives a null date, as before.
with apps as materialized (
    select app_id, data_through from int_friction_apps
)
update int_friction_outcomes o
set counted_class = friction_outcome_class(o.completed, o.day1_to, o.returned_d1, x.data_through)
from (
    select p.app_id, p.user_id, a.data_through
    from int_friction_outcomes p
    left join apps a on a.app_id = p.app_id
) x
where x.app_id = o.app_id and x.user_id = o.user_id;

insert into int_friction_screen_counts (app_id, screen, class, users)
select r.app_id, r.screen, o.counted_class, count(*)
from int_friction_reached r
join int_friction_outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
group by r.app_id, r.screen, o.counted_class;
