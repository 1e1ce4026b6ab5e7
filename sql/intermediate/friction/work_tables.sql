-- work_tables: the temporary tables one friction run works in (dropped at commit).
-- Grain: friction_scope_sessions one row per (app_id, user_id, session_id) to rebuild, with the
-- user's platform; friction_window one row per ingest file the run takes into the friction
-- tables of migration 0040; friction_new_reached one row per int_friction_reached row the run
-- added (an incremental run only) and friction_class_changes one row per outcome whose class
-- moved, for the screen counts of migration 0045.
-- Reads: nothing. Dropped first, in case an outer transaction already ran friction once.
drop table if exists friction_scope_sessions, friction_window, friction_new_reached, friction_class_changes;

create temporary table friction_scope_sessions (
    app_id     text not null,
    user_id    text not null,
    session_id text not null,
    platform   text,
    primary key (user_id, app_id, session_id)
) on commit drop;

create temporary table friction_window (
    file_id bigint primary key
) on commit drop;

create temporary table friction_new_reached (
    app_id  text not null,
    screen  text not null,
    user_id text not null
) on commit drop;

create temporary table friction_class_changes (
    app_id    text     not null,
    user_id   text     not null,
    old_class smallint,
    new_class smallint not null,
    primary key (app_id, user_id)
) on commit drop;
