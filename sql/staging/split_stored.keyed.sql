-- split_stored.keyed: the rows of a split load whose event is already stored, for a kind with a key
-- table. Only the load table's rows are looked up: the suspects' first copies are found after the
-- load table's keys are recorded (split_first_copies.keyed.sql), so a stored event among them is
-- left out there. Reads only (the load table's indexes may be built meanwhile).
-- Grain: one row per (app_id, event_id) of the load table already stored. Inputs: {{load_table}},
-- {{key_table}}. Writes the transaction's temporary table split_stored_keys. The caller holds the
-- kind's merge lock.
create temp table split_stored_keys on commit drop as
select l.app_id, l.event_id
from {{load_table}} l
join {{key_table}} k on k.app_id = l.app_id and k.event_id = l.event_id;
