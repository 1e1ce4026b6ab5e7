-- scope_tables: the working tables of one compute run; they live until the run's transaction ends.
-- Grain: compute_scope one row per (app_id, cohort_date) being rebuilt; scope_installs one row
-- per user of those cohorts; scope_user_days one row per (app_id, user_id, day_n) with activity;
-- scope_onboarding one row per user with onboarding step times; the fold's and the funnel's
-- tables below; rate_changes one row per currency whose exchange rates changed.
-- scope_user_state one row per user whose facts are (re)built, with what int_user_facts.sql
-- derives them from. Reads: int_user_facts, int_cohort_day_rollup, int_network_day_rollup,
-- int_funnel_points (their column lists only).

create temp table compute_scope (
    app_id      text not null,
    cohort_date date not null,
    primary key (app_id, cohort_date)
) on commit drop;

create temp table scope_installs (
    app_id           text        not null,
    user_id          text        not null,
    installed_at     timestamptz not null,
    cohort_date      date        not null,
    network          text        not null,
    campaign         text        not null,
    country          text        not null,
    platform         text        not null,
    referrer_user_id text,
    invite_id        text,
    installs         integer     not null,
    primary key (app_id, user_id)
) on commit drop;

create temp table scope_user_days (
    app_id             text          not null,
    user_id            text          not null,
    day_n              integer       not null,
    opens              integer       not null,
    active             boolean       not null,
    revenue_usd        numeric(20,6) not null,
    purchases          integer       not null,
    invites            integer       not null,
    first_open_at      timestamptz,
    regular_open_times timestamptz[],
    purchase_times     timestamptz[],
    last_event_at      timestamptz
) on commit drop;

-- scope_last_events: each app's latest event among the scope users' days when a rebuild of the
-- whole history sums them in the client (UserDaysTable) instead of writing scope_user_days;
-- compute_state.sql reads it beside the day tables.
create temp table scope_last_events (
    app_id        text        not null primary key,
    last_event_at timestamptz not null
) on commit drop;

-- scope_user_state: what int_user_facts.sql derives each user's facts from: their activity
-- summed over their days (from scope_user_days in a rebuild, scope_user_state.sql; from the
-- stored facts and the new days in a fold, scope_user_state.fold.sql), the days they were active
-- and bought on, their open times on days 1..D and their purchase times (each list sorted).
create temp table scope_user_state (
    app_id             text          not null,
    user_id            text          not null,
    first_open_at      timestamptz,
    regular_opens      integer       not null,
    first_purchase_day integer,
    last_active_day    integer       not null,
    invites_sent       integer       not null,
    active_days        integer[]     not null,
    purchase_days      integer[]     not null,
    regular_open_times timestamptz[] not null,
    purchase_times     timestamptz[] not null,
    primary key (app_id, user_id)
) on commit drop;

-- scope_user_activity: each user's activity summed over a set of their days (scope_user_activity.sql):
-- all their days in a rebuild, the window's new days in a fold; the columns of scope_user_state.
-- No row for a user without days.
create temp table scope_user_activity (like scope_user_state including all) on commit drop;

-- scope_inviters: the viral scope users' links to their inviters (int_user_facts.inviters.sql),
-- written into the facts with their rows (a rebuild of all history) or after them
-- (int_user_facts.inviters.apply.sql, which empties it).
create temp table scope_inviters (
    app_id               text        not null,
    user_id              text        not null,
    inviter_user_id      text        not null,
    inviter_network      text        not null,
    inviter_cohort_date  date        not null,
    inviter_installed_at timestamptz not null,
    counts_for_kfactor   boolean     not null,
    primary key (app_id, user_id)
) on commit drop;

create temp table scope_onboarding (
    app_id     text          not null,
    user_id    text          not null,
    step_times timestamptz[] not null,
    primary key (app_id, user_id)
) on commit drop;

-- The incremental fold: compute_window the loaded ingest files not yet folded in; delta_users
-- the computed users those files touch outside the rebuilt cohorts, with their facts as they were
-- before the fold (delta_old_facts) and the days the files add to (delta_new_days); held_scope
-- keeps compute_scope aside while the fold runs; spend_scope the spend dates the files touch.
create temp table compute_window (
    file_id bigint primary key
) on commit drop;

-- funnel_fact_changes: the default funnel's side of every fact row this run deletes (-1) or
-- writes (+1): breakdown and each step's seconds from the previous step (see
-- int_funnel_points.fold.sql, which applies them to int_funnel_points).
create temp table funnel_fact_changes (
    sign       integer          not null,
    app_id     text             not null,
    user_id    text             not null,
    network    text             not null,
    campaign   text             not null,
    country    text             not null,
    platform   text             not null,
    s1         double precision,
    s2         double precision,
    s3         double precision,
    s4         double precision
) on commit drop;

-- funnel_point_changes: funnel_fact_changes netted per point (user and step) and breakdown;
-- a user written as they were cancels out. Step 0 has no point: its rows are only counted.
create temp table funnel_point_changes (
    like int_funnel_points,
    sign bigint not null
) on commit drop;

-- delta_day_cells: the fold's differences of int_cohort_day_rollup cells (int_cohort_rollups.fold.sql),
-- applied to it and, summed, to int_network_day_rollup.
create temp table delta_day_cells (like int_cohort_day_rollup) on commit drop;

-- delta_network_cells: the same differences summed over campaign, country and platform, applied
-- to int_network_day_rollup and added by fct_retention.sql to the triangle's cells.
create temp table delta_network_cells (like int_network_day_rollup) on commit drop;

-- delta_empty_cells: the day rollup's cells those differences left empty, to delete by key.
create temp table delta_empty_cells (like int_cohort_day_rollup) on commit drop;

-- delta_users.fact_row: where the user's facts row lies (int_user_facts.fold.sql updates it there;
-- nothing else writes the facts between the two).
create temp table delta_users (
    app_id   text not null,
    user_id  text not null,
    fact_row tid  not null,
    primary key (app_id, user_id)
) on commit drop;

-- delta_fact_changes: what the new days change in the facts of the fast delta users (see
-- int_user_facts.fold.sql), by user, in the order of their facts rows: the new days' activity, and the days and times they add
-- to the user's state (sorted).
create temp table delta_fact_changes (
    app_id             text          not null,
    user_id            text          not null,
    fact_row           tid           not null,
    installs           integer       not null,
    regular_opens      integer       not null,
    first_purchase_day integer,
    first_purchase_at  timestamptz,
    funnel_purchase_at timestamptz,
    invites_sent       integer       not null,
    last_active_day    integer,
    active_days        integer[]     not null,
    purchase_days      integer[]     not null,
    regular_open_times timestamptz[] not null,
    purchase_times     timestamptz[] not null
) on commit drop;

-- delta_general_users: the delta users whose facts are derived again from their state (see
-- scope_user_state.fold.sql); the others' facts are updated from the new days alone.
create temp table delta_general_users (
    app_id  text not null,
    user_id text not null,
    primary key (app_id, user_id)
) on commit drop;

create temp table delta_old_facts (like int_user_facts) on commit drop;

create temp table delta_new_facts (like int_user_facts) on commit drop;

-- delta_new_days: what the window's rows add to each delta user's days, as scope_user_days.
create temp table delta_new_days (like scope_user_days) on commit drop;

create temp table held_scope (like compute_scope) on commit drop;

create temp table spend_scope (
    app_id     text not null,
    spend_date date not null,
    primary key (app_id, spend_date)
) on commit drop;

-- rate_changes: per currency whose rates changed since the last build, the first date whose rate
-- differs (currency_rate_days.sql); what was converted on or after it is redone.
create temp table rate_changes (
    currency     text not null primary key,
    changed_from date not null
) on commit drop;

-- retention_previous_state: each app's last date with data as this run found it, before the fold
-- and the rebuild move it on; fct_retention.sql computes again the cells mature since.
create temp table retention_previous_state on commit drop as
select app_id, data_through_date from compute_state;

-- The run analyzes these tables for their row counts and distinct users, which a sample of 3,000
-- rows gives as well as the default 30,000: statistics target 10 on every column (see
-- docs/performance-log.md for what it saves).
-- Identifiers come from the catalog of the connection's own temporary schema.
do $$
declare
    working record;
begin
    for working in
        select c.relname, string_agg(format('alter column %I set statistics 10', a.attname), ', ') as columns
        from pg_class c
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        where c.relnamespace = pg_my_temp_schema() and c.relkind = 'r'
        group by c.relname
    loop
        execute format('alter table pg_temp.%I %s', working.relname, working.columns);
    end loop;
end
$$;
