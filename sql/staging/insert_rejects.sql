-- insert_rejects: keeps the file's rejected rows, with the reason each was not loaded.
-- Grain: one row per rejected input row. Inputs: stage_rejects (line, kind, raw, reason from the
-- reader), $1 = file_id, $2 = the file's path.
insert into ingest_rejects (file_id, path, line, kind, raw, reason)
select $1::bigint, $2::text, line, kind, raw, reason
from stage_rejects
order by line;
