-- 0183_vendor_app_id: the app id of a vendor export whose rows name no app funnel can join
-- (Amplitude's rows name only their project; `funnel ingest --app-id APP`; docs/imports.md,
-- "Amplitude"): the file's rows are read as that app's, and a worker anywhere reads it the same way.
-- Grain: ingest_files one row per queued file. Reads: nothing.
alter table ingest_files add column vendor_app_id text;
