-- 0067_dashboard_views: the ledger of the re-runnable dash_* view files (sql/dashboards/). Every
-- migrate applies those files after the migrations when it applied a migration, or when a file's
-- SHA-256 differs from the one recorded here; so a view's current definition reads in one file
-- while the migrations stay as released.
-- Grain: one row per dashboards file. Written by funnel migrate (and every command that migrates).
create table dashboard_views (
    name            text        primary key,
    checksum_sha256 text        not null,
    applied_at      timestamptz not null default now()
);
