-- split_keys: records a split load's new events in the kind's key table: the load table's rows but
-- the events already stored (the suspects' first copies follow, split_first_copy_keys.sql).
-- Grain: one key row per new (app_id, event_id). Inputs: {{load_table}}, split_stored_keys.
-- Writes {{key_table}} (whose primary key the merge may drop first and build again after, as for
-- bulk_insert_keys.sql).
insert into {{key_table}} (app_id, event_id)
select l.app_id, l.event_id
from {{load_table}} l
where not exists (select 1 from split_stored_keys s where s.app_id = l.app_id and s.event_id = l.event_id);
