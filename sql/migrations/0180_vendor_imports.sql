-- 0180_vendor_imports: vendor exports read as they come (docs/imports.md), and the attribution
-- levels below the campaign.
-- Grain: ingest_files one row per queued file; raw_installs one row per stored install.
-- Reads: nothing.
--
-- ingest_files.source: the vendor whose export the file is (`funnel ingest --source`, or a
--   [[ingest.files]] rule's source), read through its translator; null: funnel's own contract
--   (docs/inputs.md), or a vendor told by the file's header when it is read.
-- raw_installs.adset, raw_installs.creative: the ad set (ad group) and the ad or creative an
--   install is attributed to, below its campaign; null when the source gives none.
alter table ingest_files add column source text;

alter table raw_installs
    add column adset    text,
    add column creative text;
