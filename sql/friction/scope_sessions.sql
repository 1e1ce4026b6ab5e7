-- scope_sessions: the sessions whose episodes are rebuilt: every session with a `ux` event of the
-- given apps ($1 text[], null = all) on the given UTC dates ($2 from, $3 to, inclusive, null =
-- open), with the platform of the user's first install.
-- Grain: one row per (app_id, user_id, session_id). Reads: raw_ux, raw_installs.
insert into friction_scope_sessions (app_id, user_id, session_id, platform)
with sessions as (
    select distinct app_id, user_id, session_id
    from raw_ux
    where ($1::text[] is null or app_id = any ($1::text[]))
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
