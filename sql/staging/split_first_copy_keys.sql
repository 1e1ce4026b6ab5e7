-- split_first_copy_keys: records the keys of a split load's suspects' first copies in the kind's
-- key table (split_first_copies.keyed.sql found them absent from it).
-- Grain: one key row per first copy. Inputs: split_first_copies. Writes {{key_table}}.
insert into {{key_table}} (app_id, event_id)
select app_id, event_id
from split_first_copies;
