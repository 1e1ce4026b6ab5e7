-- release_file: puts a claimed file back on the queue (the worker is stopping, or hit a
-- temporary failure), so another worker, or a later run, loads it.
-- Grain: at most one row. Inputs: $1 file_id, $2 worker id, $3 message (or null).
update ingest_files
set status = 'queued',
    claimed_by = null,
    lease_expires_at = null,
    message = $3
where file_id = $1 and claimed_by = $2 and status = 'loading'
returning file_id;
