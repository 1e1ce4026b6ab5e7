-- 0002_ingest_bookkeeping: the ingest queue (one row per submitted file), the rejects table (one
-- row per refused input row) and the dirty ledger of (app, cohort day) pairs that new data
-- touched, which incremental compute drains.
-- Grain: ingest_files one row per (submission of a) file; ingest_rejects one row per bad input
-- row; dirty_cohort_days one row per (app_id, cohort_date). Reads: nothing (ingest writes these).

create table ingest_files (
    file_id          bigserial   primary key,
    path             text        not null,
    kind             text,                      -- null: NDJSON rows name their own kind
    content_sha256   text        not null,
    size_bytes       bigint      not null,
    status           text        not null default 'queued'
                     check (status in ('queued', 'loading', 'loaded', 'refused', 'failed')),
    claimed_by       text,
    lease_expires_at timestamptz,
    attempts         integer     not null default 0,
    rows_read        bigint,
    rows_loaded      bigint,
    duplicates       bigint,
    rejected         bigint,
    message          text,
    enqueued_at      timestamptz not null default now(),
    started_at       timestamptz,
    finished_at      timestamptz
);

-- A file's content is loaded at most once: one live (queued, loading or loaded) row per checksum.
create unique index ingest_files_live_content
    on ingest_files (content_sha256)
    where status in ('queued', 'loading', 'loaded');

create index ingest_files_claimable on ingest_files (enqueued_at) where status in ('queued', 'loading');

create table ingest_rejects (
    reject_id   bigserial   primary key,
    file_id     bigint      not null references ingest_files (file_id) on delete cascade,
    path        text        not null,
    line        bigint      not null,
    kind        text,
    raw         text        not null,
    reason      text        not null,
    rejected_at timestamptz not null default now()
);

create index ingest_rejects_by_file on ingest_rejects (file_id, line);

create table dirty_cohort_days (
    app_id          text        not null,
    cohort_date     date        not null,
    first_marked_at timestamptz not null default now(),
    primary key (app_id, cohort_date)
);
