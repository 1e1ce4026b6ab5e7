-- lock_claimed_file: first statement of a file's merge transaction. Row-locks the file's queue
-- row, which proves the claim is still ours and keeps any other worker from taking it over
-- while the merge runs (claim_file skips locked rows), however long the merge takes.
-- Grain: at most one row. Inputs: $1 file_id, $2 worker id.
select file_id
from ingest_files
where file_id = $1 and claimed_by = $2 and status = 'loading'
for update;
