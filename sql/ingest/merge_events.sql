-- merge_events: moves one file's staged events of one kind (opens, retention, purchases,
-- invites, steps, ux) into its raw table, each event once. A template: the loader fills {{raw_table}}, {{stage_table}},
-- {{columns}} and {{staged_columns}} from the kind's fixed field list in code (EventKind.fields),
-- never from input. installs and ad_spend have their own merges.
-- Grain: one raw row per new (app_id, event_id). Inputs: the staging table (the file's valid
-- rows in file order), the raw table, $1 = file_id. Writes the raw table. Returns the number of rows inserted. The caller holds this kind's merge
-- lock (pg_advisory_xact_lock), so no other transaction inserts this kind between the
-- "not exists" check and the insert.
--
-- Within the file the first occurrence of an event wins (ctid = COPY order: the staging table is
-- truncated, then only appended to by COPY in one session). An event already stored is skipped
-- whatever its timestamp ("not exists" on (app_id, event_id) over every partition).
-- Nothing is marked for compute: it finds the rows of files it has not folded in by file_id.
with staged as (
    select distinct on (app_id, event_id)
        {{columns}}
    from {{stage_table}}
    order by app_id, event_id, ctid
),
inserted as (
    insert into {{raw_table}} ({{columns}}, file_id)
    select {{staged_columns}}, $1::bigint
    from staged s
    where not exists (
        select 1 from {{raw_table}} r where r.app_id = s.app_id and r.event_id = s.event_id)
    returning 1
)
select count(*)::bigint as rows_loaded from inserted;
