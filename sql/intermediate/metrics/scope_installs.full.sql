-- scope_installs.full: scope_installs.sql for a rebuild of the whole history, when the
-- facts were just emptied (reset.sql) and the scope holds every install's cohort date: every user
-- with an install, with their first install (their cohort and attribution) and how many installs
-- they have. The same rows as scope_installs.sql in that case, from one scan of raw_installs
-- instead of probing it per candidate user (the candidates' size is not known to the planner: 6.8 s
-- of probes at 300k users).
-- Grain: one row per (app_id, user_id). Reads: raw_installs, compute_settings.
-- compute_scope is analyzed as scope_installs.sql does: unanalyzed, the planner takes its 90
-- cohort days for 1,270 and every user's facts joined with it for 12k rows, and the day rollup
-- then hashed the 2.2M user days instead of the 356k users (int_cohort_rollups.sql).
truncate scope_installs;
analyze compute_scope;

with settings as (
    select time_zone from compute_settings where app_id = ''
)
insert into scope_installs
select distinct on (i.app_id, i.user_id)
    i.app_id,
    i.user_id,
    i.installed_at,
    (timezone(s.time_zone, i.installed_at))::date,
    i.network,
    coalesce(i.campaign, ''),
    coalesce(i.country, ''),
    coalesce(i.platform, ''),
    nullif(i.referrer_user_id, ''),
    nullif(i.invite_id, ''),
    count(*) over (partition by i.app_id, i.user_id)
from raw_installs i
cross join settings s
order by i.app_id, i.user_id, i.installed_at, i.event_id;

analyze scope_installs;
