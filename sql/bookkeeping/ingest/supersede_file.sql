-- supersede_file: `funnel ingest --retry`: the loaded entry of a content stops being its live
-- entry, so the content can be queued again with new options. It stays loaded: the rows it
-- stored keep its file_id, and loading the content again stores only what it did not (events
-- by key; ad spend restated by key with the same values).
-- Grain: at most one row, the place in the order of files the new entry takes (ranks_as).
-- Inputs: $1 file_id.
update ingest_files
set superseded_at = now()
where file_id = $1 and status = 'loaded' and superseded_at is null
returning coalesce(ranks_as, file_id) as ranks_as;
