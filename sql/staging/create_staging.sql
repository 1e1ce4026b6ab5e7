-- create_staging: the session's staging tables, one per input kind, plus the rejects of the file
-- being loaded.
-- Grain: one row per valid input row of the file in hand (stage_<kind>), per rejected row
-- (stage_rejects), per row that may repeat an earlier row's key (stage_suspects). Inputs: none.
--
-- Session temporary tables rather than unlogged tables keyed by file_id: they are private to the
-- worker's connection (no locking or catalog churn between workers), never WAL-logged, without
-- indexes, and they disappear with the session, so a worker killed mid-file leaves no staged rows
-- behind for anyone to clean up. They are created once per connection; before each file the
-- loader truncates those an earlier file filled (FileLoader.filledStaging).
-- Columns follow each kind's field order (EventKind.fields), the COPY line order.
-- stage_identity_moves holds the devices whose rows the file's merge moves to their user
-- (identity_moves.sql).

create temp table if not exists stage_installs (
    event_id text, app_id text, user_id text, installed_at timestamptz, network text,
    platform text, country text, campaign text, referrer_user_id text, invite_id text, adset text, creative text,
    device_id text);

create temp table if not exists stage_opens (
    event_id text, app_id text, user_id text, opened_at timestamptz, session_seconds integer, device_id text);

create temp table if not exists stage_retention (
    event_id text, app_id text, user_id text, day integer, reported_at timestamptz, device_id text);

create temp table if not exists stage_purchases (
    event_id text, app_id text, user_id text, purchased_at timestamptz, revenue numeric(20,6),
    currency text, product_id text, device_id text);

create temp table if not exists stage_invites (
    event_id text, app_id text, user_id text, invite_id text, sent_at timestamptz, channel text, device_id text);

create temp table if not exists stage_ad_spend (
    app_id text, spend_date date, network text, spend numeric(20,6), campaign text, country text,
    currency text, impressions bigint, clicks bigint, hour smallint, adset text, creative text);

create temp table if not exists stage_steps (
    event_id text, app_id text, user_id text, occurred_at timestamptz, step text, screen text, device_id text);

create temp table if not exists stage_ux (
    event_id text, app_id text, user_id text, session_id text, occurred_at timestamptz,
    screen text, type text, phase text, orientation text, feedback_shown boolean,
    permission text, guidance_shown boolean, field text, message_shown boolean,
    bad_state boolean, input_mode text,
    kb_x real, kb_y real, kb_w real, kb_h real,
    focus_x real, focus_y real, focus_w real, focus_h real,
    action_x real, action_y real, action_w real, action_h real,
    caret_y real, screen_w real, screen_h real, device_id text);

create temp table if not exists stage_events (
    event_id text, app_id text, user_id text, event text, occurred_at timestamptz, properties jsonb, device_id text);

create temp table if not exists stage_identity_moves (
    app_id text not null, device_id text not null, user_id text not null, primary key (app_id, device_id));

create temp table if not exists stage_currency_rates (
    rate_date date, currency text, usd_per_unit numeric(20,10));

create temp table if not exists stage_rejects (
    line bigint, kind text, raw text, reason text);

-- The keys of the rows that may repeat an earlier row of the file (RepeatedKeyFilter): every
-- later copy of an event is among them, with a few keys seen once.
create temp table if not exists stage_suspects (
    kind text, event_id text, app_id text);

-- The merges through a key table need only the staged key's row and distinct counts, which a
-- sample of 3,000 rows gives as well as the default 30,000 (a 90-day bench day's staged files:
-- 0.10 -> 0.03 s).
alter table stage_opens alter column app_id set statistics 10, alter column event_id set statistics 10;
alter table stage_retention alter column app_id set statistics 10, alter column event_id set statistics 10;
alter table stage_purchases alter column app_id set statistics 10, alter column event_id set statistics 10;
alter table stage_invites alter column app_id set statistics 10, alter column event_id set statistics 10;
alter table stage_steps alter column app_id set statistics 10, alter column event_id set statistics 10;
alter table stage_ux alter column app_id set statistics 10, alter column event_id set statistics 10;
alter table stage_events alter column app_id set statistics 10, alter column event_id set statistics 10;
