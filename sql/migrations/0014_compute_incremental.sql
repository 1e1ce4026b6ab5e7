-- 0014_compute_incremental: what lets compute fold new rows in by user instead of rebuilding
-- every cohort those users belong to: the persisted per-user-day activity of every computed
-- user, the set of loaded ingest files whose rows compute has folded in, and block-range
-- indexes on file_id so a run finds the rows of new files without scanning the raw tables.
-- Grain: int_user_days one row per (app_id, user_id, day_n); compute_files one row per folded
-- ingest file. Reads: nothing (compute writes these).

-- int_user_days: what each computed user did on each day after install (the scope_user_days of
-- the run that last rebuilt or folded that user). Grain: one row per (app_id, user_id, day_n).
create table int_user_days (
    app_id             text          not null,
    user_id            text          not null,
    day_n              integer       not null,
    opens              integer       not null,
    active             boolean       not null,
    revenue_usd        numeric(20,6) not null,
    purchases          integer       not null,
    invites            integer       not null,
    first_open_at      timestamptz,
    regular_open_times timestamptz[],
    purchase_times     timestamptz[],
    last_event_at      timestamptz,
    primary key (app_id, user_id, day_n)
);

-- compute_files: loaded ingest files whose rows are in the derived tables. A run folds in the
-- rows of loaded files missing here, then records them. A file's rows and its 'loaded' status
-- must commit together (a run reads one snapshot). Grain: one row per file_id.
create table compute_files (
    file_id   bigint      primary key,
    folded_at timestamptz not null default now()
);

-- Files loaded before this migration were computed through the dirty ledger (or wait in it):
-- folding them in again would count their rows twice.
insert into compute_files (file_id)
select file_id from ingest_files where status = 'loaded';

-- Rows are appended file by file, so file_id follows the physical order and a BRIN index finds
-- a new file's rows in a few block ranges; it costs ingest next to nothing.
create index raw_installs_by_file on raw_installs using brin (file_id);
create index raw_opens_by_file on raw_opens using brin (file_id);
create index raw_retention_by_file on raw_retention using brin (file_id);
create index raw_purchases_by_file on raw_purchases using brin (file_id);
create index raw_invites_by_file on raw_invites using brin (file_id);
create index raw_steps_by_file on raw_steps using brin (file_id);
create index raw_ad_spend_by_file on raw_ad_spend using brin (file_id);

-- array_cat_agg: concatenates arrays (NULLs add nothing), to merge a user's stored day with the
-- events of new files.
create aggregate array_cat_agg(anycompatiblearray) (sfunc = array_cat, stype = anycompatiblearray);
