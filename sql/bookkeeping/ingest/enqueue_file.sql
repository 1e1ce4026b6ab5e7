-- enqueue_file: puts one file on the ingest queue unless a file with the same content is already
-- queued, loading or loaded (then nothing is inserted and no row is returned). Content that was
-- refused or failed before is put back on the queue in its latest entry, with the new options,
-- rather than in a new one: a file refused run after run keeps one queue row.
-- Grain: one ingest_files row per submitted content. Inputs: $1 path, $2 kind (null: from each
-- NDJSON line), $3 content SHA-256 (hex), $4 size in bytes, $5 --assume-tz (or null), $6 per-app
-- zones (jsonb or null), $7 the zone of the other apps (or null), $8 max reject share, $9 the
-- entry a retry takes the place of in the order of files (or null), $10 the vendor whose export the
-- file is (--source; null: funnel's contract or told by the header), $11 its revenue is in minor
-- units (--revenue-minor-units), $12 the app id its rows are read as (--app-id, or null).
with live as (
    select 1
    from ingest_files
    where content_sha256 = $3 and status in ('queued', 'loading', 'loaded') and superseded_at is null
), requeued as (
    update ingest_files f
    set status = 'queued', path = $1, kind = $2, size_bytes = $4, assume_tz = $5, app_time_zones = $6::jsonb,
        default_tz = $7, max_reject_share = $8, ranks_as = $9, source = $10, revenue_minor_units = $11, vendor_app_id = $12, claimed_by = null, lease_expires_at = null, attempts = 0,
        rows_read = null, rows_loaded = null, duplicates = null, rejected = null, message = null,
        lines = null, header_lines = null, blank_lines = null, continuation_lines = null,
        enqueued_at = now(), started_at = null, finished_at = null
    where f.file_id = (select r.file_id from ingest_files r
                       where r.content_sha256 = $3 and r.status in ('refused', 'failed')
                       order by r.file_id desc limit 1)
      and f.status in ('refused', 'failed')
      and not exists (select 1 from live)
    returning f.file_id
), inserted as (
    insert into ingest_files (path, kind, content_sha256, size_bytes, assume_tz, app_time_zones, default_tz, max_reject_share,
                              ranks_as, source, revenue_minor_units, vendor_app_id)
    select $1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9::bigint, $10::text, $11::boolean, $12::text
    where not exists (select 1 from requeued) and not exists (select 1 from live)
    on conflict (content_sha256) where status in ('queued', 'loading', 'loaded') and superseded_at is null do nothing
    returning file_id
)
select file_id from requeued
union all
select file_id from inserted;
