-- bulk_insert_stored_months: moves the bulk merge's rows of months the raw table already had a
-- partition for (the load table's default partition) into the raw table, through its indexes.
-- Grain: one raw row per such new event. Inputs: {{load_table}}_stored. Writes {{raw_table}}.
insert into {{raw_table}} ({{columns}}, file_id)
select {{columns}}, file_id
from {{load_table}}_stored;
