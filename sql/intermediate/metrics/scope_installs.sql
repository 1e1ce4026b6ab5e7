-- scope_installs: the users whose cohort is being rebuilt, with their first install (their
-- cohort and attribution) and how many installs they have (reinstalls do not make new cohort
-- members). Candidates are users with an install on a scope date and users already counted in a
-- scope cohort (a late, earlier install can move a user to another cohort). An install on a scope
-- date that is a reinstall of a known user (later than the first install their facts hold)
-- makes no candidate: that user stays in their cohort, and the fold counts the reinstall.
-- Grain: one row per (app_id, user_id). Reads: compute_scope, raw_installs, int_user_facts,
-- compute_settings.
-- A scope of a few cohort days (a daily run) reads each candidate's installs through
-- raw_installs_by_user; a wider one scans raw_installs, cheaper than probing most users. The
-- scope's statistics let the planner probe the facts' cohort index for a few days (0.26 s -> 3 ms
-- for one day at 1M users). Known users are left out by an anti-join (not a correlated "not
-- exists", which Citus refuses between raw_installs on the coordinator and distributed facts).
truncate scope_installs;
analyze compute_scope;

with settings as (
    select time_zone from compute_settings where app_id = ''
), bounds as (
    select min(cohort_date) - 2 as first_date, max(cohort_date) + 2 as last_date from compute_scope
), candidates as (
    select i.app_id, i.user_id
    from raw_installs i
    cross join settings s
    cross join bounds b
    join compute_scope sc
      on sc.app_id = i.app_id
     and sc.cohort_date = (timezone(s.time_zone, i.installed_at))::date
    left join int_user_facts f
      on f.app_id = i.app_id and f.user_id = i.user_id and f.installed_at < i.installed_at
    where i.installed_at >= b.first_date::timestamp at time zone 'UTC'
      and i.installed_at < b.last_date::timestamp at time zone 'UTC'
      and f.user_id is null
    union
    select f.app_id, f.user_id
    from int_user_facts f
    join compute_scope sc on sc.app_id = f.app_id and sc.cohort_date = f.cohort_date
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
from (
    select i.*
    from raw_installs i
    join candidates c on c.app_id = i.app_id and c.user_id = i.user_id
    where (select count(*) from compute_scope) > 7
    union all
    select i.*
    from candidates c
    cross join lateral (
        select * from raw_installs x where x.app_id = c.app_id and x.user_id = c.user_id offset 0
    ) i
    where (select count(*) from compute_scope) <= 7
) i
cross join settings s
order by i.app_id, i.user_id, i.installed_at, i.event_id;

analyze scope_installs;
