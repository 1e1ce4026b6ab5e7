-- bulk_insert: the bulk merge's one write of a file's new events: every staged row but the later
-- copies of an event (bulk_duplicates) and the events already stored ({{stored_keys}}: the kind's
-- key table, or raw_installs), into the load table, whose partitions route each row to its month.
-- Grain: one row per new (app_id, event_id). Inputs: {{stage_table}} (in file order, as
-- in bulk_duplicates.sql), bulk_duplicates, {{stored_keys}}, $1 = file_id. Writes {{load_table}}.
-- Returns the rows inserted. The caller holds the kind's merge lock, as for the daily merge
-- (merge_events.sql, merge_installs.sql).
with inserted as (
    insert into {{load_table}} ({{columns}}, file_id)
    select {{staged_columns}}, $1::bigint
    from {{stage_table}} s
    where not exists (
              select 1 from bulk_duplicates d
              where d.app_id = s.app_id and d.event_id = s.event_id and d.first_copy <> s.ctid)
      and not exists (
              select 1 from {{stored_keys}} k where k.app_id = s.app_id and k.event_id = s.event_id)
    returning 1
)
select count(*)::bigint as rows_loaded from inserted;
