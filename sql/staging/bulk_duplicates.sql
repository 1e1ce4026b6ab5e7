-- bulk_duplicates: the events a staged file holds more than once, with the first copy's place, for
-- the bulk merge (FileLoader's bulk path, docs/architecture.md "The bulk path").
-- Grain: one row per (app_id, event_id) staged twice or more. Inputs: the kind's staging table
-- ({{stage_table}}, the session's, filled in file order by one COPY stream, so the lowest ctid
-- is the first copy). Writes the transaction's temporary table bulk_duplicates (dropped at
-- commit).
--
-- The daily merge sorts every staged row by key to keep each event's first copy; in a history
-- file nearly every event is unique, so grouping the keys alone by hash and keeping only the keys
-- seen twice costs less than sorting the wide rows (1.9M telemetry rows: 5.1 s against 7.1-9.8 s).
create temp table bulk_duplicates on commit drop as
select app_id, event_id, min(ctid) as first_copy
from {{stage_table}}
group by app_id, event_id
having count(*) > 1;
