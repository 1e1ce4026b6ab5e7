-- scope_sessions: the sessions whose episodes are rebuilt, with the platform of the user's first
-- install. When $4 (boolean) is true, an incremental run's: every session with a `ux` row in the
-- loaded files no friction run has read yet, found through raw_ux's index on file_id (a day's
-- telemetry names a few thousand sessions; a scope by dates scanned the month's partition and
-- took in the sessions of the day before too). Read before the run records the files as read
-- (bookkeeping/friction/fold_files.sql), so a run that rebuilds the outcomes still rescans only these. Otherwise every
-- session with a `ux` event of the given apps ($1 text[], null = all) on the given UTC dates ($2
-- from, $3 to, inclusive, null = open). Either way a session is read whole afterwards
-- (session_events.sql), so one that spans files or days is judged on all its events.
-- Grain: one row per (app_id, user_id, session_id). Reads: ingest_files, friction_files, raw_ux,
-- raw_installs.
insert into friction_scope_sessions (app_id, user_id, session_id, platform)
with unread as (
    select f.file_id
    from ingest_files f
    where $4::boolean
      and f.status = 'loaded'
      and not exists (select 1 from friction_files ff where ff.file_id = f.file_id)
),
sessions as (
    select distinct u.app_id, u.user_id, u.session_id
    from raw_ux u
    where $4::boolean
      and u.file_id between (select min(file_id) from unread) and (select max(file_id) from unread)
      and u.file_id in (select file_id from unread)
    union
    select distinct app_id, user_id, session_id
    from raw_ux
    where not $4::boolean
      and ($1::text[] is null or app_id = any ($1::text[]))
      and ($2::date is null or occurred_at >= ($2::date)::timestamp at time zone 'UTC')
      and ($3::date is null or occurred_at < ($3::date + 1)::timestamp at time zone 'UTC')
),
first_installs as (
    select distinct on (i.app_id, i.user_id) i.app_id, i.user_id, i.platform
    from raw_installs i
    where exists (select 1 from sessions s where s.app_id = i.app_id and s.user_id = i.user_id)
    order by i.app_id, i.user_id, i.installed_at
)
select s.app_id, s.user_id, s.session_id, f.platform
from sessions s
left join first_installs f on f.app_id = s.app_id and f.user_id = s.user_id;
