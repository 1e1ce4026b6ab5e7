-- unread_files: whether loaded ingest files wait whose rows the friction tables have not taken
-- in (the day's new files, a run stopped between compute and friction, or a database migrated to
-- 0040 with data loaded): friction then rescans the sessions they touch. Also whether the
-- outcomes were counted under another time zone or day rule than $1 (text) and $2 (text) (a
-- configuration change or migration 0047): friction then rebuilds them even with no file unread.
-- Grain: one row (pending boolean, day_rule_changed boolean). Reads: ingest_files,
-- friction_files, friction_day_rule.
select exists (select 1 from ingest_files f
               where f.status = 'loaded'
                 and not exists (select 1 from friction_files ff where ff.file_id = f.file_id)) as pending,
       not exists (select 1 from friction_day_rule r
                   where r.time_zone = $1::text and r.day_rule = $2::text) as day_rule_changed
