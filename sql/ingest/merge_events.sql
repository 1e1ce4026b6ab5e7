-- merge_events: moves one file's staged events of one kind (opens, retention, purchases,
-- invites, steps, ux) into its raw table, each event once. A template: the loader fills
-- {{raw_table}}, {{key_table}}, {{stage_table}}, {{columns}} and {{staged_columns}} from the
-- kind's fixed field list in code (EventKind.fields), never from input. installs and ad_spend
-- have their own merges.
-- Grain: one raw row and one key row per new (app_id, event_id). Inputs: the staging table (the
-- file's valid rows in file order), the kind's key table, $1 = file_id. Writes the key table and
-- the raw table. Returns the number of rows inserted. The caller holds this kind's merge lock
-- (pg_advisory_xact_lock); the key table's primary key would keep two merges from storing one
-- event twice even without it.
--
-- Within the file the first occurrence of an event wins (ctid = COPY order: the staging table is
-- truncated, then only appended to by COPY in one session). An event already stored is skipped
-- whatever its timestamp: its (app_id, event_id) is in the key table (migration 0050), whose
-- insert both checks and records it with one probe, however many monthly partitions the raw
-- table has. The staged rows come sorted by key, so the key table's index is walked in order.
-- Nothing is marked for compute: it finds the rows of files it has not folded in by file_id.
with staged as (
    select distinct on (app_id, event_id)
        {{columns}}
    from {{stage_table}}
    order by app_id, event_id, ctid
),
new_keys as (
    insert into {{key_table}} (app_id, event_id)
    select app_id, event_id from staged
    on conflict (app_id, event_id) do nothing
    returning app_id, event_id
),
inserted as (
    insert into {{raw_table}} ({{columns}}, file_id)
    select {{staged_columns}}, $1::bigint
    from staged s
    join new_keys k on k.app_id = s.app_id and k.event_id = s.event_id
    returning 1
)
select count(*)::bigint as rows_loaded from inserted;
