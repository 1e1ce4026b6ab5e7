-- unread_files: loaded ingest files whose rows the friction tables have not taken in (a run
-- stopped between compute and friction, or a database migrated to 0040 with data loaded), and
-- the day before the earliest `ux` event in them (null when they hold no telemetry): friction
-- rescans the sessions from there. Also whether the outcomes were counted under another time zone
-- or day rule than $1 (text) and $2 (text) (a configuration change or migration 0047): friction
-- then rebuilds them even with no file unread.
-- Grain: one row (pending boolean, friction_from date, day_rule_changed boolean). Reads:
-- ingest_files, friction_files, raw_ux (the files' rows through its index on file_id),
-- friction_day_rule.
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
          and u.file_id in (select file_id from unread)) as friction_from,
       not exists (select 1 from friction_day_rule r
                   where r.time_zone = $1::text and r.day_rule = $2::text) as day_rule_changed
