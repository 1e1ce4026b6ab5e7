-- 0140_ingest_file_options: what a queued file is read with beyond its --assume-tz, and retries.
-- Grain: ingest_files, one row per queued file. Reads: nothing.
--
-- app_time_zones: per app id, the zone of its rows' zone-less timestamps ([[ingest.apps]]), as a
--   JSON object; default_tz: the zone of the other rows' ([ingest] assume_tz). assume_tz, when
--   set, still covers every row of the file.
-- max_reject_share: the file is refused when more than this share of its rows is rejected.
-- ranks_as: a retried content's first entry, whose place in the order of files it keeps (a later
--   file's restated ad spend still wins over it; see sql/staging/retry_spend_losers.sql).
-- superseded_at: when `funnel ingest --retry` loaded the same content again. The entry stays
--   loaded (the rows it stored are still its own, by file_id), but is no longer the content's
--   live entry: the newer one is, so the unique index on live content leaves it out.
alter table ingest_files
    add column app_time_zones   jsonb,
    add column default_tz       text,
    add column max_reject_share double precision,
    add column ranks_as         bigint,
    add column superseded_at    timestamptz;

drop index ingest_files_live_content;
create unique index ingest_files_live_content
    on ingest_files (content_sha256)
    where status in ('queued', 'loading', 'loaded') and superseded_at is null;
