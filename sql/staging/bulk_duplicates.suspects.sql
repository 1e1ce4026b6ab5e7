-- bulk_duplicates.suspects: bulk_duplicates.sql when the reader noted every row that may repeat an
-- earlier row's key (stage_suspects, RepeatedKeyFilter): the same rows, grouping only the staged
-- rows whose key is a suspect's instead of every staged key (5.7M telemetry keys: 10 s of hashing
-- with spills to disk, against one scan joined to the few suspects).
-- Grain: one row per (app_id, event_id) staged twice or more. Inputs: {{stage_table}} (in file
-- order, as in bulk_duplicates.sql), stage_suspects, $1 = the kind. Writes the
-- transaction's temporary table bulk_duplicates (dropped at commit).
create temp table bulk_duplicates on commit drop as
select s.app_id, s.event_id, min(s.ctid) as first_copy
from {{stage_table}} s
join (select distinct app_id, event_id from stage_suspects where kind = $1) k
  on k.app_id = s.app_id and k.event_id = s.event_id
group by s.app_id, s.event_id
having count(*) > 1;
