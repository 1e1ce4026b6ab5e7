-- unread_files: loaded ingest files whose rows the friction tables have not taken in (a run
-- stopped between compute and friction, or a database migrated to 0040 with data loaded), and
-- the day before the earliest `ux` event in them (null when they hold no telemetry): friction
-- rescans the sessions from there.
-- Grain: one row (pending boolean, friction_from date). Reads: ingest_files, friction_files,
-- raw_ux (the files' rows through its index on file_id).
with unread as (
    select f.file_id
    from ingest_files f
    where f.status = 'loaded'
      and not exists (select 1 from friction_files ff where ff.file_id = f.file_id)
)
select exists (select 1 from unread) as pending,
       (select min((u.occurred_at at time zone 'UTC')::date) - 1
        from raw_ux u
        where u.file_id between (select min(file_id) from unread) and (select max(file_id) from unread)
          and u.file_id in (select file_id from unread)) as friction_from
