-- scope_window: adds to the scope the cohort dates where the window's installs land and the
-- current cohorts of the users they belong to: a new user, a reinstall or an earlier install
-- changes who a cohort holds, so those cohorts are rebuilt from the raw rows. Also lists the
-- spend dates the window's spend rows touch.
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
)
insert into compute_scope (app_id, cohort_date)
select i.app_id, (timezone(s.time_zone, i.installed_at))::date
from installs i
cross join settings s
union
select f.app_id, f.cohort_date
from int_user_facts f
join installs i on i.app_id = f.app_id and i.user_id = f.user_id
on conflict do nothing
