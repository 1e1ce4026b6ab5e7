-- 0080_compute_configuration: the configuration the last compute ran under, as users wrote it:
-- the file it came from and every setting as text. The reports show it ("computed under"), and
-- the next compute compares its own with it to say which settings changed. compute_settings
-- keeps the values the SQL reads; this keeps what people read.
-- Grain: one row (the last compute). Written by funnel compute and funnel run after a compute.
create table compute_configuration (
    singleton   boolean     primary key default true check (singleton),
    source      text,
    settings    jsonb       not null,
    fingerprint text        not null,
    run_id      bigint,
    recorded_at timestamptz not null default now()
);
