-- find_live_file: the queued, loading or loaded file with this content, if any.
-- Grain: at most one row (ingest_files_live_content is unique). Inputs: $1 content SHA-256.
select file_id, path, status
from ingest_files
where content_sha256 = $1 and status in ('queued', 'loading', 'loaded');
