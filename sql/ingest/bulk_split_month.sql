-- bulk_split_month: one new month of a split staging's rows, written before the file's merge
-- transaction into a table of its own with the raw table's columns (made by the caller with
-- `like {{raw_table}}`), to be indexed there and attached as the raw table's partition by the
-- merge. Grain: one row per event of the month in the file, its first copy only (the later ones
-- are in {{duplicates}}). Inputs: {{stage_table}} (load_seq: each row's place in the file),
-- {{duplicates}}, $1 = file_id, $2 and $3 = the month's bounds. Writes {{month_table}}. Returns
-- the rows written.
--
-- The events already stored are not left out here: that needs the kind's merge lock, which the
-- merge takes before deleting them from this table (bulk_split_delete_stored.sql).
with inserted as (
    insert into {{month_table}} ({{columns}}, file_id)
    select {{staged_columns}}, $1::bigint
    from {{stage_table}} s
    where s.{{time_column}} >= $2::timestamptz and s.{{time_column}} < $3::timestamptz
      and not exists (
              select 1 from {{duplicates}} d
              where d.app_id = s.app_id and d.event_id = s.event_id and d.first_copy <> s.load_seq)
    returning 1
)
select count(*)::bigint as rows_written from inserted;
