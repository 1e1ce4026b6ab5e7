-- claim_file: gives this worker the oldest claimable file: queued, or loading under a lease that
-- expired (its worker died). SKIP LOCKED lets any number of workers claim at once without
-- waiting on each other; a file whose merge is running is row-locked by it and so skipped.
-- Grain: at most one row. Inputs: $1 worker id, $2 lease in seconds, $3 the file ids to choose
-- from (null: any file), $4 largest first.
--
-- Files are claimed in the order they were queued, so with one worker an event delivered in two
-- files keeps the first file's row. A run with several workers ($4) takes the largest first
-- instead: the longest loads start at once and the small files fill in beside them (a day of
-- telemetry otherwise started last and ran alone: 4.1-5.4 s for a bench day's 15 files against
-- 2.8-3.5 s), and a file of a kind another worker is loading after every other kind's: a small
-- file merged before a large one of its kind makes the months the large one would have attached
-- whole (FileLoader.waitForSplitLoads). Workers already made which of two files' copies of an
-- event wins a race; restated ad spend is decided by file_id whatever the order
-- (merge_ad_spend.sql).
with candidate as (
    select f.file_id
    from ingest_files f
    where (f.status = 'queued' or (f.status = 'loading' and f.lease_expires_at < now()))
      and ($3::bigint[] is null or f.file_id = any ($3::bigint[]))
    order by case when $4::boolean then exists (
                 select 1 from ingest_files o
                 where o.status = 'loading' and o.kind = f.kind and o.file_id <> f.file_id
                   and o.lease_expires_at >= now()) else false end,
             case when $4::boolean then f.size_bytes else 0 end desc, f.enqueued_at, f.file_id
    limit 1
    for update skip locked
)
update ingest_files f
set status = 'loading',
    claimed_by = $1,
    lease_expires_at = now() + make_interval(secs => $2::double precision),
    attempts = f.attempts + 1,
    started_at = now()
from candidate
where f.file_id = candidate.file_id
returning f.file_id, f.path, f.kind, f.assume_tz, f.attempts, f.app_time_zones::text, f.default_tz, f.max_reject_share, f.ranks_as, f.source, f.revenue_minor_units, f.vendor_app_id;
