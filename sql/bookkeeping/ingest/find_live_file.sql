-- find_live_file: the queued, loading or loaded file with this content, if any, with the rows it
-- rejected (a loaded file with rejects can be loaded again with --retry).
-- Grain: at most one row (ingest_files_live_content is unique). Inputs: $1 content SHA-256.
select file_id, path, status, coalesce(rejected, 0) as rejected
from ingest_files
where content_sha256 = $1 and status in ('queued', 'loading', 'loaded') and superseded_at is null;
