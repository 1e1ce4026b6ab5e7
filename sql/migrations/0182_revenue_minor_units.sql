-- 0182_revenue_minor_units: a vendor export whose revenue is written in minor units (cents), as
-- a PostHog project may be set up to send it (`funnel ingest --revenue-minor-units`;
-- docs/imports.md, "PostHog"): the file is read with the amounts divided by the currency's minor
-- units, and a worker anywhere reads it the same way.
-- Grain: ingest_files one row per queued file. Reads: nothing.
alter table ingest_files add column revenue_minor_units boolean not null default false;
