-- fold_window: the loaded ingest files whose rows the friction tables (migration 0040) have not
-- taken in yet; every loaded file when $1 (boolean) asks for a rebuild. Returns how many.
-- Grain: one row per file in friction_window; returns one row. Reads: ingest_files, friction_files.
with added as (
    insert into friction_window (file_id)
    select f.file_id
    from ingest_files f
    where f.status = 'loaded'
      and ($1::boolean or not exists (select 1 from friction_files ff where ff.file_id = f.file_id))
    returning file_id
)
select count(*) from added
