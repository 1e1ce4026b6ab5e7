-- scope.window: adds to the scope the cohort dates where the window's installs of new users
-- land, and, for an install that may become a known user's first (no later than the one their
-- facts hold), that date and the user's current cohort: it changes who those cohorts hold, so
-- both are rebuilt from the raw rows. A later install of a known user (a reinstall) moves
-- nobody: the fold counts it (scope_installs.fold.sql). Also lists the spend dates the window's spend
-- rows touch.
-- Grain: compute_scope and spend_scope one row per (app_id, date). Reads: compute_window,
-- raw_installs, raw_ad_spend, int_user_facts, compute_settings. Rows are found between the lowest
-- and highest file_id of the window (index on file_id).
with settings as (
    select time_zone from compute_settings where app_id = ''
), installs as (
    select i.app_id, i.user_id, i.installed_at
    from raw_installs i
    where i.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and i.file_id in (select file_id from compute_window)
), spend as (
    insert into spend_scope (app_id, spend_date)
    select distinct a.app_id, a.spend_date
    from raw_ad_spend a
    where a.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and a.file_id in (select file_id from compute_window)
    on conflict do nothing
), moving as (
    -- installs of users without facts, or no later than their known first install
    select i.app_id, i.user_id, i.installed_at, f.cohort_date as current_cohort_date
    from installs i
    left join int_user_facts f on f.app_id = i.app_id and f.user_id = i.user_id
    where f.user_id is null or i.installed_at <= f.installed_at
)
insert into compute_scope (app_id, cohort_date)
select m.app_id, (timezone(s.time_zone, m.installed_at))::date
from moving m
cross join settings s
union
select m.app_id, m.current_cohort_date
from moving m
where m.current_cohort_date is not null
on conflict do nothing
