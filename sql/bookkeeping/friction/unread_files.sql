-- unread_files: whether loaded ingest files wait whose rows the friction tables have not taken
-- in (the day's new files, a run stopped between compute and friction, or a database migrated to
-- 0040 with data loaded): friction then rescans the sessions they touch. Also whether the
-- outcomes were counted under another time zone or day rule than the configuration in force (a
-- configuration change, a friction run that failed after one, or migration 0047): friction then
-- rebuilds them even with no file unread.
-- Grain: one row (pending boolean, day_rule_changed boolean). Reads: ingest_files,
-- friction_files, compute_settings, computed_under (friction's row).
select exists (select 1 from ingest_files f
               where f.status = 'loaded'
                 and not exists (select 1 from friction_files ff where ff.file_id = f.file_id)) as pending,
       not exists (select 1 from computed_under r
                   where r.lane = 'friction'
                     and r.time_zone = coalesce((select time_zone from compute_settings where app_id = ''), 'UTC')
                     and r.day_rule = coalesce((select day_rule from compute_settings where app_id = ''), 'calendar'))
           as day_rule_changed
