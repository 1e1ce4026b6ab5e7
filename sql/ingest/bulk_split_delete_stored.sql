-- bulk_split_delete_stored: takes out of a month table built before the merge
-- (bulk_split_month.sql) the events already stored, under the kind's merge lock in the file's
-- merge transaction. Grain: one deleted row per event of the month table already stored.
-- Inputs: {{stored_keys}} (the kind's key table, or raw_installs). Writes {{month_table}}.
-- Returns the rows deleted (none in a first import).
with deleted as (
    delete from {{month_table}} m
    where exists (select 1 from {{stored_keys}} k where k.app_id = m.app_id and k.event_id = m.event_id)
    returning 1
)
select count(*)::bigint as rows_deleted from deleted;
