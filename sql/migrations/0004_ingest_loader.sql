-- 0004_ingest_loader: what the loader and the ingest queue need beyond 0001-0002.
-- Grain: no new tables. Reads: nothing.
--
-- raw_installs_by_user: the merge looks up a user's first install (the cohort) for every user
-- that new rows touch; (app_id, user_id, installed_at) answers "first install of this user" with
-- one index probe per partition instead of a scan.
-- ingest_files.assume_tz: the --assume-tz given when the file was enqueued, so that any worker,
-- on any machine, reads the file the way the user asked.
-- ingest_files_claim: the claim query's order (oldest first) among claimable rows.

create index raw_installs_by_user on raw_installs (app_id, user_id, installed_at);

alter table ingest_files add column assume_tz text;

create index ingest_files_claim on ingest_files (status, enqueued_at, file_id)
    where status in ('queued', 'loading');
