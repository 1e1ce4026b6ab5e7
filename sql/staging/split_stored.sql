-- split_stored: removes from a split load table the events already stored ({{stored_keys}}: the
-- kind's key table, or raw_installs), as the daily merge skips them.
-- Grain: one deleted row per such event. Inputs: {{stored_keys}}. Writes {{load_table}}.
-- Returns the rows removed. The caller holds the kind's merge lock.
with removed as (
    delete from {{load_table}} l
    using {{stored_keys}} k
    where k.app_id = l.app_id and k.event_id = l.event_id
    returning 1
)
select count(*)::bigint as rows_removed from removed;
