-- 0061_raw_events: the `events` input kind: custom product events with a name, a time and a JSON
-- object of properties, loaded exactly once like every event kind (staging, then
-- merge_events.sql through the key table raw_events_keys).
-- Grain: raw_events, one row per stored (app_id, event_id); raw_events_keys, its key.
-- Reads: nothing. ensure_month_partitions is replaced to know the new table.
create table raw_events (
    event_id    text        not null,
    app_id      text        not null,
    user_id     text        not null,
    event       text        not null,
    occurred_at timestamptz not null,
    properties  jsonb,
    file_id     bigint      not null
) partition by range (occurred_at);

create table raw_events_keys (
    app_id   text not null,
    event_id text not null,
    primary key (app_id, event_id)
);

create index raw_events_by_file on raw_events (file_id);
-- Funnels and retention read one app's events of a few names over a time range.
create index raw_events_by_name on raw_events (app_id, event, occurred_at);

create or replace function ensure_month_partitions(parent text, from_date date, to_date date)
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
                      'raw_invites', 'raw_ad_spend', 'raw_steps', 'raw_ux', 'raw_events') then
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
