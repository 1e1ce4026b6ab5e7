-- split_stored: the events of a split load of installs already stored ({{stored_keys}}:
-- raw_installs; a kind with a key table takes split_stored.keyed.sql), which the daily merge would
-- skip: among the load table's rows and the suspects' first copies. Reads only (the load table's
-- indexes may be built meanwhile).
-- Grain: one row per (app_id, event_id) of the file already stored. Inputs: {{load_table}},
-- split_first_copies, {{stored_keys}}. Writes the transaction's temporary table split_stored_keys.
-- The caller holds the kind's merge lock.
create temp table split_stored_keys on commit drop as
select l.app_id, l.event_id
from {{load_table}} l
join {{stored_keys}} k on k.app_id = l.app_id and k.event_id = l.event_id
union all
select f.app_id, f.event_id
from split_first_copies f
join {{stored_keys}} k on k.app_id = f.app_id and k.event_id = f.event_id;
