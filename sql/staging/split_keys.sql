-- split_keys: records a split load's new events in the kind's key table: the load table's rows and
-- the suspects' first copies, but the events already stored.
-- Grain: one key row per new (app_id, event_id). Inputs: {{load_table}}, split_first_copies,
-- split_stored_keys. Writes {{key_table}} (whose primary key the merge may drop first and build
-- again after, as for bulk_insert_keys.sql).
insert into {{key_table}} (app_id, event_id)
select l.app_id, l.event_id
from {{load_table}} l
where not exists (select 1 from split_stored_keys s where s.app_id = l.app_id and s.event_id = l.event_id)
union all
select f.app_id, f.event_id
from split_first_copies f
where not exists (select 1 from split_stored_keys s where s.app_id = f.app_id and s.event_id = f.event_id);
