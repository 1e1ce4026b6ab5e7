-- file_statuses: the state and counters of some queued files, for the ingest summary; for a
-- finished file, claimed_by names the worker that finished it (finish_file.sql).
-- Grain: one row per file_id. Inputs: $1 file ids.
select file_id, path, kind, status, coalesce(rows_read, 0) as rows_read,
       coalesce(rows_loaded, 0) as rows_loaded, coalesce(duplicates, 0) as duplicates,
       coalesce(rejected, 0) as rejected, message,
       coalesce(lines, 0) as lines, coalesce(header_lines, 0) as header_lines,
       coalesce(blank_lines, 0) as blank_lines, coalesce(continuation_lines, 0) as continuation_lines,
       claimed_by
from ingest_files
where file_id = any ($1::bigint[])
order by file_id;
