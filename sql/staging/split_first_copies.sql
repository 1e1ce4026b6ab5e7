-- split_first_copies: the first copies among a split load's suspects (rows whose key the reader
-- may have seen before), for installs (a kind with a key table takes
-- split_first_copies.keyed.sql): a suspect whose key is among the load table's rows (every row
-- the reader sent there was the first of its key) is a later copy; of the others, each key's
-- first in the file is kept. A key whose first copy was a suspect (a false positive of the
-- filter) has every copy among the suspects, so the lowest place keeps the file's first copy.
-- Reads only, so the load table's indexes may be built meanwhile (SplitIndexBuild);
-- split_apply.sql adds the rows.
-- Grain: one row per event whose every copy was a suspect. Inputs: {{load_table}},
-- {{suspects_table}}. Writes the transaction's temporary table split_first_copies.
create temp table split_first_copies on commit drop as
with found as materialized (
    select distinct l.app_id, l.event_id
    from {{load_table}} l
    join (select distinct app_id, event_id from {{suspects_table}}) k
      on k.app_id = l.app_id and k.event_id = l.event_id
)
select distinct on (s.app_id, s.event_id) {{staged_columns}}
from {{suspects_table}} s
where not exists (select 1 from found f where f.app_id = s.app_id and f.event_id = s.event_id)
order by s.app_id, s.event_id, s.load_seq;
