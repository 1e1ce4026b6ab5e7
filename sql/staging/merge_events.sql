-- merge_events: moves one file's staged events of one kind (opens, retention, purchases,
-- invites, steps, ux) into its raw table, each event once. A template: the loader fills
-- {{raw_table}}, {{key_table}}, {{stage_table}}, {{columns}} and {{staged_columns}} from the
-- kind's fixed field list in code (EventKind.fields), never from input. installs and ad_spend
-- have their own merges.
-- Grain: one raw row and one key row per new (app_id, event_id). Inputs: the staging table (the
-- file's valid rows in file order), the kind's key table, $1 = file_id. Writes the key table and
-- the raw table. Returns the number of rows inserted. The caller holds this kind's merge lock
-- (pg_advisory_xact_lock), so no other merge of the kind inserts keys meanwhile; were one to come
-- in anyway, the key table's primary key would fail this merge rather than store an event twice.
--
-- Within the file the first occurrence of an event wins (ctid = COPY order: the staging table is
-- truncated, then only appended to by COPY in one session). An event already stored is skipped
-- whatever its timestamp: its (app_id, event_id) is in the key table (migration 0050), found with
-- one index probe however many monthly partitions the raw table has. The staged rows come sorted
-- by key in the key table's order (event_id, app_id: migration 0122), so its index is walked in
-- order. The new events' keys are then inserted plainly: `insert ... on conflict do nothing
-- returning` probed and inserted at once, but each speculative insertion cost more than a probe
-- and a plain insert (the day's opens: 0.95-1.65 s against 0.63-0.84 s on fresh copies of the
-- 90-day database).
-- Nothing is marked for compute: it finds the rows of files it has not folded in by file_id.
with staged as (
    select distinct on (event_id, app_id)
        {{columns}}
    from {{stage_table}}
    order by event_id, app_id, ctid
),
fresh as materialized (
    select s.*
    from staged s
    where not exists (
        select 1 from {{key_table}} k where k.app_id = s.app_id and k.event_id = s.event_id)
),
new_keys as (
    insert into {{key_table}} (app_id, event_id)
    select app_id, event_id from fresh
),
inserted as (
    insert into {{raw_table}} ({{columns}}, file_id)
    select {{staged_columns}}, $1::bigint
    from fresh s
    returning 1
)
select count(*)::bigint as rows_loaded from inserted;
