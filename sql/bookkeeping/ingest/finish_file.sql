-- finish_file: records the end of a claimed file: loaded with its counters, or refused/failed
-- with a message. claimed_by stays set to the worker that finished the file, so a run that
-- waited for it can name who loaded it.
-- Grain: at most one row. Inputs: $1 file_id, $2 worker id, $3 status, $4 rows read,
-- $5 rows loaded, $6 duplicates, $7 rejected, $8 message (or null; for a loaded vendor export, its note:
-- which vendor, the zone applied, the rows the vendor marks, the columns not stored), $9 physical lines,
-- $10 header lines, $11 blank lines, $12 continuation lines (null when not loaded).
update ingest_files
set status = $3,
    rows_read = $4,
    rows_loaded = $5,
    duplicates = $6,
    rejected = $7,
    message = $8,
    lines = $9,
    header_lines = $10,
    blank_lines = $11,
    continuation_lines = $12,
    lease_expires_at = null,
    finished_at = now()
where file_id = $1 and claimed_by = $2 and status = 'loading'
returning file_id;
