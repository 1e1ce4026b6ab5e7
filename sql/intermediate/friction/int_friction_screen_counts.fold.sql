-- int_friction_screen_counts.fold: brings the screen counts of migration 0045 up to date after an incremental
-- fold (fold_reached, fold_outcomes, fold_outcome_rows and fold_apps have run). A user whose outcome
-- class changed (onboarding completed, a day-1 open, day 1 became known as the app's last open
-- day moved on, an earlier install, or a user new to the outcomes) moves the reached screens counted
-- before from the old class to the new one; the screens the run added (friction_new_reached) are
-- counted under the user's class as it now is. Each outcome then says its class as counted.
-- Every outcome's class is recomputed (one pass over int_friction_outcomes: a class depends on the
-- end of the app's last day with an open, which moves every day); the few that changed go to a
-- temporary table with statistics, and their reached screens joined by user (a lateral probe with
-- offset 0 and a correlated "not exists", which Citus refuses against the temporary tables, kept
-- the planner from hashing every reached screen before: 0.24 s).
-- Grain: int_friction_screen_counts one row per (app_id, screen, class) with users > 0;
-- int_friction_outcomes.counted_class. Reads: int_friction_outcomes, int_friction_apps,
-- int_friction_reached, friction_new_reached. Writes friction_class_changes on the way.
insert into friction_class_changes (app_id, user_id, old_class, new_class)
select app_id, user_id, old_class, new_class
from (
    select o.app_id, o.user_id, o.counted_class as old_class,
           friction_outcome_class(o.completed, o.day1_to, o.returned_d1, a.data_through) as new_class
    from int_friction_outcomes o
    left join int_friction_apps a on a.app_id = o.app_id
) c
where old_class is distinct from new_class;

analyze friction_class_changes, friction_new_reached;

with counted_before as (
    -- the changed users' screens counted before this run (under their old class)
    select r.app_id, r.screen, c.old_class, c.new_class
    from friction_class_changes c
    join int_friction_reached r on r.app_id = c.app_id and r.user_id = c.user_id
    left join friction_new_reached n on n.app_id = r.app_id and n.screen = r.screen and n.user_id = r.user_id
    where c.old_class is not null
      and n.user_id is null
), moves as (
    select app_id, screen, old_class as class, -1 as users from counted_before
    union all
    select app_id, screen, new_class, 1 from counted_before
    union all
    select n.app_id, n.screen,
           coalesce(c.new_class, o.counted_class), 1
    from friction_new_reached n
    join int_friction_outcomes o on o.app_id = n.app_id and o.user_id = n.user_id
    left join friction_class_changes c on c.app_id = n.app_id and c.user_id = n.user_id
)
insert into int_friction_screen_counts as s (app_id, screen, class, users)
select app_id, screen, class, sum(users)
from moves
group by app_id, screen, class
having sum(users) <> 0
on conflict (app_id, screen, class) do update set users = s.users + excluded.users;

update int_friction_outcomes o
set counted_class = c.new_class
from friction_class_changes c
where o.app_id = c.app_id and o.user_id = c.user_id;

delete from int_friction_screen_counts where users = 0;
