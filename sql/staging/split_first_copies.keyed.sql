-- split_first_copies.keyed: the first copies among a split load's suspects (rows whose key the
-- reader may have seen before), for a kind with a key table, once the load table's keys are
-- recorded in it: a suspect whose key is in the key table is a later copy of a load table row or
-- an event stored before; of the others, each key's first in the file is kept. A key whose first
-- copy was a suspect (a false positive of the filter) has every copy among the suspects, so the
-- lowest place keeps the file's first copy. Probes the key table's primary key instead of reading
-- the load table, whose rows are wide (the telemetry file's 5.7M rows: 6.6 s to scan and join).
-- Grain: one row per new event whose every copy was a suspect. Inputs: {{suspects_table}},
-- {{key_table}}. Writes the transaction's temporary table split_first_copies.
create temp table split_first_copies on commit drop as
select distinct on (s.event_id, s.app_id) {{staged_columns}}
from {{suspects_table}} s
where not exists (select 1 from {{key_table}} k where k.app_id = s.app_id and k.event_id = s.event_id)
order by s.event_id, s.app_id, s.load_seq;
