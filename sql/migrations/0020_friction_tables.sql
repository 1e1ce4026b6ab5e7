-- 0020_friction_tables: onboarding friction marts: the episodes found in `ux` telemetry, the
-- impact of each (screen, friction type) on drop-off, and the breakdown of flagged ones.
-- Grain: fct_friction_episodes one row per episode (a session can hit a type on a screen more
-- than once); fct_friction_impact one row per (app_id, screen, friction_type) that any user hit;
-- fct_friction_breakdown one row per (app_id, screen, friction_type, dimension, value) of flagged
-- pairs. Reads: nothing (FunnelCompute's FrictionComputation writes these).
--
-- Episodes are rebuilt per session for the dirty scope; impact and breakdown are recomputed whole
-- per app (they are small aggregates). Rates are fractions 0..1; relative_risk is 'Infinity'
-- when nobody who missed the friction dropped off but some who hit it did, and null when undefined.

create table fct_friction_episodes (
    app_id        text             not null,
    user_id       text             not null,
    session_id    text             not null,
    screen        text             not null,
    friction_type text             not null,
    occurred_at   timestamptz      not null,
    severity      double precision not null check (severity >= 0 and severity <= 1),
    input_mode    text,
    orientation   text,
    platform      text
);

create index fct_friction_episodes_session on fct_friction_episodes (app_id, user_id, session_id);
create index fct_friction_episodes_pair on fct_friction_episodes (app_id, screen, friction_type, user_id);

create table fct_friction_impact (
    app_id               text             not null,
    screen               text             not null,
    friction_type        text             not null,
    users_hit            integer          not null check (users_hit >= 0),
    users_not_hit        integer          not null check (users_not_hit >= 0),
    dropped_hit          integer          not null check (dropped_hit between 0 and users_hit),
    dropped_not_hit      integer          not null check (dropped_not_hit between 0 and users_not_hit),
    dropoff_hit          double precision,
    dropoff_not_hit      double precision,
    relative_risk        double precision,
    p_value              double precision not null check (p_value between 0 and 1),
    q_value              double precision not null check (q_value between 0 and 1),
    users_lost           double precision not null check (users_lost >= 0),
    meets_minimum_sample boolean          not null,
    flagged              boolean          not null,
    rank                 integer          check (rank >= 1 and (rank is null) = (not flagged)),
    d1_users_hit         integer          not null,
    d1_users_not_hit     integer          not null,
    d1_dropoff_hit       double precision,
    d1_dropoff_not_hit   double precision,
    d1_relative_risk     double precision,
    d1_p_value           double precision not null check (d1_p_value between 0 and 1),
    computed_at          timestamptz      not null default now(),
    primary key (app_id, screen, friction_type)
);

create table fct_friction_breakdown (
    app_id              text             not null,
    screen              text             not null,
    friction_type       text             not null,
    dimension           text             not null check (dimension in ('input_mode', 'orientation', 'platform')),
    value               text             not null,
    users_hit           integer          not null check (users_hit >= 0),
    dropped_hit         integer          not null check (dropped_hit between 0 and users_hit),
    dropoff_hit         double precision,
    dropoff_not_hit     double precision,
    relative_risk       double precision,
    users_lost          double precision not null check (users_lost >= 0),
    share_of_users_lost double precision,
    -- The slice carries most of the users lost (at least FrictionSettings.explainingShare).
    explains_effect     boolean          not null,
    primary key (app_id, screen, friction_type, dimension, value)
);
