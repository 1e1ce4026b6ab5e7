-- fct_friction_episodes.platforms: an episode carries the platform of its user's first install. An
-- install in the files the run takes in (friction_window) can be a user's first, arriving after
-- their sessions were judged (a late file, or a reinstall that turns out earlier), so the
-- episodes of those users take the first install's platform now (the sessions the run rebuilt
-- carry it already). The detectors never read the platform, so the episodes themselves stand. The
-- users' rows in int_friction_hits (their first episodes) take it too. Only installers with hits
-- are looked up: every user with an episode from an earlier run has one (int_friction_hits.fold.sql derives the
-- rescanned users' rows after this).
-- Grain: fct_friction_episodes and int_friction_hits rows updated. Reads: friction_window,
-- raw_installs.
with window_installers as materialized (
    select distinct i.app_id, i.user_id
    from raw_installs i
    where i.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and i.file_id in (select file_id from friction_window)
), installers as (
    -- joined to the hits by user (a correlated "exists" into the distributed hits from
    -- raw_installs, on the coordinator, is refused by Citus)
    select distinct w.app_id, w.user_id
    from window_installers w
    join int_friction_hits h on h.app_id = w.app_id and h.user_id = w.user_id
), first_platforms as materialized (
    select n.app_id, n.user_id, f.platform
    from installers n
    cross join lateral (
        select i.platform from raw_installs i
        where i.app_id = n.app_id and i.user_id = n.user_id
        order by i.installed_at
        limit 1
    ) f
), episodes as (
    update fct_friction_episodes e
    set platform = p.platform
    from first_platforms p
    where e.app_id = p.app_id and e.user_id = p.user_id
      and e.platform is distinct from p.platform
)
update int_friction_hits h
set platform = p.platform
from first_platforms p
where h.app_id = p.app_id and h.user_id = p.user_id
  and h.platform is distinct from p.platform
