-- 0053_friction_hits: each user who hit each (screen, friction type), with their first episode
-- there (its time, input mode, orientation and platform) and the outcome class their screens are
-- counted under, so friction's impact and breakdown count one table instead of joining every
-- episode with every user's outcome on each run (0.6 s of a daily run at 90 days of history, 1.2 s
-- at a year, on the lane beside the metrics). sql/friction/fold_hits.sql keeps it: the users whose
-- sessions a run rescans are derived again from their episodes, and users whose class moves take
-- the new one.
-- Grain: one row per (app_id, screen, friction_type, user_id) with an episode. counted_class is
-- the user's int_friction_outcomes.counted_class (null: no outcome, not counted, as the impact's
-- join with the outcomes did). Reads: fct_friction_episodes, int_friction_outcomes.
create table int_friction_hits (
    app_id        text        not null,
    screen        text        not null,
    friction_type text        not null,
    user_id       text        not null,
    first_at      timestamptz not null,
    input_mode    text,
    orientation   text,
    platform      text,
    counted_class smallint,
    primary key (app_id, screen, friction_type, user_id)
);

-- A user's rows, found when their sessions are rescanned or their class moves.
create index int_friction_hits_by_user on int_friction_hits (app_id, user_id);

insert into int_friction_hits
select distinct on (e.app_id, e.screen, e.friction_type, e.user_id)
       e.app_id, e.screen, e.friction_type, e.user_id, e.occurred_at, e.input_mode, e.orientation,
       e.platform, o.counted_class
from fct_friction_episodes e
left join int_friction_outcomes o on o.app_id = e.app_id and o.user_id = e.user_id
order by e.app_id, e.screen, e.friction_type, e.user_id, e.occurred_at, e.session_id, e.input_mode,
         e.orientation;
