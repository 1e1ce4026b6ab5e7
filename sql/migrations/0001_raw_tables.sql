-- 0001_raw_tables: the raw event tables, one per input kind of SPEC.md, and the helper that
-- creates their monthly partitions.
-- Grain: one row per (app_id, event_id) for events; one row per (app_id, spend_date, network,
-- campaign, country) for ad_spend. Reads: nothing (ingest writes these).
--
-- Every raw table is range-partitioned by month on its time column, so old months can be
-- detached and daily work touches recent partitions. The primary key must contain the partition
-- key, so it is (app_id, event_id, <time>); the loader deduplicates by (app_id, event_id) across
-- partitions before it inserts. Tables are keyed and distributable by app_id/user_id and have no
-- cross-user foreign keys (see README "Growing past one machine"). Column names equal the input
-- field names, except ad_spend's `date`, stored as `spend_date`.

create table raw_installs (
    event_id         text        not null,
    app_id           text        not null,
    user_id          text        not null,
    installed_at     timestamptz not null,
    network          text        not null,
    platform         text,
    country          text,
    campaign         text,
    referrer_user_id text,
    invite_id        text,
    file_id          bigint      not null,
    primary key (app_id, event_id, installed_at)
) partition by range (installed_at);

create table raw_opens (
    event_id        text        not null,
    app_id          text        not null,
    user_id         text        not null,
    opened_at       timestamptz not null,
    session_seconds integer,
    file_id         bigint      not null,
    primary key (app_id, event_id, opened_at)
) partition by range (opened_at);

create table raw_retention (
    event_id    text        not null,
    app_id      text        not null,
    user_id     text        not null,
    day         integer     not null,
    reported_at timestamptz not null,
    file_id     bigint      not null,
    primary key (app_id, event_id, reported_at)
) partition by range (reported_at);

create table raw_purchases (
    event_id     text          not null,
    app_id       text          not null,
    user_id      text          not null,
    purchased_at timestamptz   not null,
    revenue      numeric(20,6) not null,
    currency     text          not null default 'USD',
    product_id   text,
    file_id      bigint        not null,
    primary key (app_id, event_id, purchased_at)
) partition by range (purchased_at);

create table raw_invites (
    event_id  text        not null,
    app_id    text        not null,
    user_id   text        not null,
    invite_id text        not null,
    sent_at   timestamptz not null,
    channel   text,
    file_id   bigint      not null,
    primary key (app_id, event_id, sent_at)
) partition by range (sent_at);

-- Networks restate spend: a later row for the same key replaces the earlier one, so the key is
-- the primary key and absent campaign/country are stored as '' (a key column cannot be null).
create table raw_ad_spend (
    app_id      text          not null,
    spend_date  date          not null,
    network     text          not null,
    campaign    text          not null default '',
    country     text          not null default '',
    spend       numeric(20,6) not null,
    currency    text          not null default 'USD',
    impressions bigint,
    clicks      bigint,
    file_id     bigint        not null,
    primary key (app_id, spend_date, network, campaign, country)
) partition by range (spend_date);

create table raw_steps (
    event_id    text        not null,
    app_id      text        not null,
    user_id     text        not null,
    occurred_at timestamptz not null,
    step        text        not null,
    screen      text,
    file_id     bigint      not null,
    primary key (app_id, event_id, occurred_at)
) partition by range (occurred_at);

create table raw_ux (
    event_id       text        not null,
    app_id         text        not null,
    user_id        text        not null,
    session_id     text        not null,
    occurred_at    timestamptz not null,
    screen         text        not null,
    type           text        not null,
    phase          text,
    orientation    text,
    feedback_shown boolean,
    permission     text,
    guidance_shown boolean,
    field          text,
    message_shown  boolean,
    bad_state      boolean,
    input_mode     text,
    kb_x real, kb_y real, kb_w real, kb_h real,
    focus_x real, focus_y real, focus_w real, focus_h real,
    action_x real, action_y real, action_w real, action_h real,
    caret_y real, screen_w real, screen_h real,
    file_id        bigint      not null,
    primary key (app_id, event_id, occurred_at)
) partition by range (occurred_at);

-- ensure_month_partitions: creates the monthly partitions of one raw table that cover
-- [from_date, to_date]. Idempotent and safe when two loaders call it at once (a unique violation
-- on the catalog from a concurrent creator is ignored). The parent must be one of the raw tables
-- above; partition names are built with %I from that fixed list, never from input.
create function ensure_month_partitions(parent text, from_date date, to_date date)
returns integer
language plpgsql
as $$
declare
    month_start date := date_trunc('month', from_date)::date;
    created integer := 0;
    partition_name text;
    is_timestamp boolean;
begin
    if parent not in ('raw_installs', 'raw_opens', 'raw_retention', 'raw_purchases',
                      'raw_invites', 'raw_ad_spend', 'raw_steps', 'raw_ux') then
        raise exception 'ensure_month_partitions: % is not a raw table', parent;
    end if;
    is_timestamp := parent <> 'raw_ad_spend';
    while month_start <= to_date loop
        partition_name := parent || '_' || to_char(month_start, 'YYYY_MM');
        if to_regclass(format('%I.%I', current_schema(), partition_name)) is null then
            begin
                if is_timestamp then
                    execute format(
                        'create table %I partition of %I for values from (%L) to (%L)',
                        partition_name, parent,
                        (month_start::text || ' 00:00:00+00')::timestamptz,
                        ((month_start + interval '1 month')::date::text || ' 00:00:00+00')::timestamptz);
                else
                    execute format(
                        'create table %I partition of %I for values from (%L) to (%L)',
                        partition_name, parent, month_start, (month_start + interval '1 month')::date);
                end if;
                created := created + 1;
            exception when duplicate_table or unique_violation then
                null;
            end;
        end if;
        month_start := (month_start + interval '1 month')::date;
    end loop;
    return created;
end;
$$;
