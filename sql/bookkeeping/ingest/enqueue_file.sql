-- enqueue_file: puts one file on the ingest queue unless a file with the same content is already
-- queued, loading or loaded (then nothing is inserted and no row is returned).
-- Grain: one ingest_files row per submitted file. Inputs: $1 path, $2 kind (null: from each
-- NDJSON line), $3 content SHA-256 (hex), $4 size in bytes, $5 --assume-tz (or null).
insert into ingest_files (path, kind, content_sha256, size_bytes, assume_tz)
values ($1, $2, $3, $4, $5)
on conflict (content_sha256) where status in ('queued', 'loading', 'loaded') do nothing
returning file_id;
