-- window_files: the run's window: every loaded ingest file whose rows compute has not folded in
-- yet (the run's snapshot decides which are loaded). Returns how many.
-- Grain: one row per file in compute_window; returns one row. Reads: ingest_files, compute_files.
with added as (
    insert into compute_window (file_id)
    select f.file_id
    from ingest_files f
    where f.status = 'loaded'
      and not exists (select 1 from compute_files c where c.file_id = f.file_id)
    returning file_id
)
select count(*) from added
