-- lock_idle_file: locks a file's queue row unless a worker is loading it, so a split load's
-- leftover table can be dropped without racing a worker that claims the file meanwhile (the claim
-- waits for the lock, then makes its table afresh).
-- Grain: one row, `idle`: true when the file is not being loaded or is no longer on the queue.
-- Inputs: ingest_files, $1 = file_id.
select coalesce((select status <> 'loading' from ingest_files where file_id = $1 for update), true) as idle;
