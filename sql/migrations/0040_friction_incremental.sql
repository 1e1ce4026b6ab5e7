-- 0040_friction_incremental: what the friction impact needs about every user, kept between runs
-- and brought up to date from the ingest files no friction run has read yet, so a daily run
-- reads its new rows instead of all telemetry, steps, installs and opens again.
-- Grain: int_friction_reached one row per (app_id, screen, user_id) a user reached, by a `ux`
-- event or a `steps` row naming the screen; int_friction_screens one row per (app_id, screen)
-- with telemetry (only those count as onboarding screens for friction);
-- int_friction_outcomes one row per (app_id, user_id) of int_friction_reached: onboarding
-- completed, the UTC date of the first install, and an open on the UTC day after it;
-- int_friction_apps one row per app with the UTC date of its last open (day 1 is known up to
-- it); friction_files one row per ingest file whose rows are in these tables.
-- Reads: nothing (FrictionComputation fills them with sql/friction/fold_*.sql). Empty after
-- this migration, so the next friction run reads every loaded file once.

create table int_friction_reached (
    app_id  text not null,
    screen  text not null,
    user_id text not null,
    primary key (app_id, screen, user_id)
);

create table int_friction_screens (
    app_id text not null,
    screen text not null,
    primary key (app_id, screen)
);

create table int_friction_outcomes (
    app_id       text    not null,
    user_id      text    not null,
    completed    boolean not null,
    install_date date,
    returned_d1  boolean not null,
    primary key (app_id, user_id)
) with (fillfactor = 90);

create table int_friction_apps (
    app_id         text primary key,
    last_open_date date
);

create table friction_files (
    file_id bigint primary key
);
