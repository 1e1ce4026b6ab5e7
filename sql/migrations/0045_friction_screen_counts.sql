-- 0045_friction_screen_counts: the users who reached each onboarding screen, counted by outcome
-- class and kept by each friction run's changes, so the impact's "not hit" side is a sum over a few
-- rows instead of a join of every reached screen with every outcome (2.5 s on every daily run of
-- the daily bench, growing with the history).
-- An outcome class packs what impact counts of one user: onboarding completed or not, and day 1
-- unknown / not returned / returned (see friction_outcome_class). Each user's outcome row says the
-- class their reached screens are counted under (counted_class; null: not counted yet), so a run
-- moves exactly the users whose class changed (sql/friction/fold_screen_counts.sql).
-- Grain: int_friction_screen_counts one row per (app_id, screen, class) with users > 0, over
-- every int_friction_reached row whose user has an outcome (screens without telemetry included;
-- readers keep the int_friction_screens ones). Reads: int_friction_reached, int_friction_outcomes,
-- int_friction_apps (once, to fill it).

-- The class of one user's outcome: 0-2 onboarding not completed, 3-5 completed; plus 0 when day 1
-- is unknown (no install date, no open seen yet, or the install is not a full day before the
-- app's last open), 1 when the user did not return on day 1, 2 when they did. impact_counts.sql
-- decodes it: completed = class >= 3, day 1 known = class % 3 <> 0, dropped on day 1 = class % 3 = 1.
create function friction_outcome_class(completed boolean, install_date date, returned_d1 boolean,
                                       last_open_date date) returns smallint
    language sql immutable parallel safe
    return (case when completed then 3 else 0 end
            + case when install_date is null or last_open_date is null or install_date + 1 > last_open_date then 0
                   when returned_d1 then 2
                   else 1 end)::smallint;

alter table int_friction_outcomes add column counted_class smallint;

-- A user's reached screens, found from their outcome when their class moves.
create index int_friction_reached_by_user on int_friction_reached (app_id, user_id);

create table int_friction_screen_counts (
    app_id text     not null,
    screen text     not null,
    class  smallint not null,
    users  bigint   not null,
    primary key (app_id, screen, class)
);

update int_friction_outcomes o
set counted_class = friction_outcome_class(o.completed, o.install_date, o.returned_d1,
                                           (select a.last_open_date from int_friction_apps a where a.app_id = o.app_id));

insert into int_friction_screen_counts (app_id, screen, class, users)
select r.app_id, r.screen, o.counted_class, count(*)
from int_friction_reached r
join int_friction_outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
group by r.app_id, r.screen, o.counted_class;
