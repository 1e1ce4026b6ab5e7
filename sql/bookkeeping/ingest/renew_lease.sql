-- renew_lease: extends this worker's lease on the file it is loading. No row returned means the
-- lease was lost (expired and taken over): the worker must drop the file.
-- Grain: at most one row. Inputs: $1 file_id, $2 worker id, $3 lease in seconds.
update ingest_files
set lease_expires_at = now() + make_interval(secs => $3::double precision)
where file_id = $1 and claimed_by = $2 and status = 'loading'
returning file_id;
