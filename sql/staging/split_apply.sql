-- split_apply: adds a split load's suspects' first copies to its load table once the table's
-- indexes are built, but the events already stored (split_remove_stored.sql removes the load
-- table's own, when there are any).
-- Grain: one row per first copy of a new event. Inputs: split_first_copies, split_stored_keys.
-- Writes {{load_table}} (file_id from its default). Returns the rows added.
with added as (
    insert into {{load_table}} ({{columns}})
    select {{columns}}
    from split_first_copies f
    where not exists (select 1 from split_stored_keys s where s.app_id = f.app_id and s.event_id = f.event_id)
    returning 1
)
select count(*)::bigint as rows_added from added;
