-- list_rejects: the rejected rows of some files, in file and line order, for --show-rejects.
-- Grain: one row per rejected input row. Inputs: $1 file ids, $2 the most rows to return.
select path, line, reason
from ingest_rejects
where file_id = any ($1::bigint[])
order by file_id, line
limit $2;
