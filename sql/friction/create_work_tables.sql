-- create_work_tables: the temporary tables one friction run works in (dropped at commit).
-- Grain: friction_scope_sessions one row per (app_id, user_id, session_id) to rebuild, with the
-- user's platform; friction_reached one row per (app_id, user_id, screen) a user reached;
-- friction_user_outcomes one row per (app_id, user_id) who reached an onboarding screen.
-- Reads: nothing. Dropped first, in case an outer transaction already ran friction once.
drop table if exists friction_scope_sessions, friction_reached, friction_user_outcomes;

create temporary table friction_scope_sessions (
    app_id     text not null,
    user_id    text not null,
    session_id text not null,
    platform   text,
    primary key (app_id, user_id, session_id)
) on commit drop;

create temporary table friction_reached (
    app_id  text not null,
    user_id text not null,
    screen  text not null,
    primary key (app_id, screen, user_id)
) on commit drop;

create temporary table friction_user_outcomes (
    app_id     text    not null,
    user_id    text    not null,
    dropped    boolean not null,
    d1_dropped boolean,
    primary key (app_id, user_id)
) on commit drop;
