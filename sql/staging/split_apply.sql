-- split_apply: completes a split load's table once its indexes are built: adds the suspects' first
-- copies and removes the events already stored, so it holds exactly the file's new events.
-- Grain: one row per new event of the file. Inputs: split_first_copies, split_stored_keys. Writes
-- {{load_table}} (file_id from its default). Returns the rows added and removed.
with added as (
    insert into {{load_table}} ({{columns}})
    select {{columns}}
    from split_first_copies f
    where not exists (select 1 from split_stored_keys s where s.app_id = f.app_id and s.event_id = f.event_id)
    returning 1
), removed as (
    delete from {{load_table}} l
    using split_stored_keys s
    where s.app_id = l.app_id and s.event_id = l.event_id
    returning 1
)
select (select count(*) from added)::bigint as rows_added, (select count(*) from removed)::bigint as rows_removed;
