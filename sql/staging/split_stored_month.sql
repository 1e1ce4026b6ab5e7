-- split_stored_month: moves a split load's rows of a month the raw table already has a partition
-- for into the raw table, through its indexes (a new month's partition is attached instead).
-- Grain: one raw row per new event of that month. Inputs: {{partition}}. Writes {{raw_table}}.
insert into {{raw_table}} ({{columns}}, file_id)
select {{columns}}, file_id
from {{partition}};
