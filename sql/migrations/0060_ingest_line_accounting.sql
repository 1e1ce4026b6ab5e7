-- 0060_ingest_line_accounting: every physical line of a loaded file, by what became of it, so a
-- file's summary can show that nothing was silently dropped: lines = header_lines + rows_read +
-- blank_lines + continuation_lines (rows_read = loaded + duplicates + rejected records).
-- Grain: ingest_files, one row per queued file (null for files loaded before this migration,
-- refused or failed files).
alter table ingest_files
    add column lines              bigint,
    add column header_lines       bigint,
    add column blank_lines        bigint,
    add column continuation_lines bigint;
