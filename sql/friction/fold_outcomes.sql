-- fold_outcomes: computes from the raw rows the outcome of each user whose outcome is unknown or
-- may have moved: users the window brought into int_friction_reached, and known users whose first
-- install the window moved earlier (or brought at all); every reached user when $1 (boolean) asks
-- for a rebuild. Outcome: onboarding completed (an `onboarding_complete` step at any time), the
-- UTC date of the first install, and whether an open fell on the UTC calendar day after it.
-- Grain: one row per (app_id, user_id) upserted. Reads: friction_window, int_friction_reached,
-- int_friction_outcomes, raw_ux, raw_steps, raw_installs, raw_opens (the opens from the day after
-- the earliest install date concerned: the partitions before it are not read).
with window_users as (
    select u.app_id, u.user_id
    from raw_ux u
    where not $1::boolean
      and u.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and u.file_id in (select file_id from friction_window)
    union
    select st.app_id, st.user_id
    from raw_steps st
    where not $1::boolean
      and st.screen is not null
      and st.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and st.file_id in (select file_id from friction_window)
), users as materialized (
    select distinct r.app_id, r.user_id
    from int_friction_reached r
    where $1::boolean
    union
    select w.app_id, w.user_id
    from window_users w
    where not exists (select 1 from int_friction_outcomes o where o.app_id = w.app_id and o.user_id = w.user_id)
    union
    select i.app_id, i.user_id
    from raw_installs i
    join int_friction_outcomes o on o.app_id = i.app_id and o.user_id = i.user_id
    where not $1::boolean
      and i.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and i.file_id in (select file_id from friction_window)
      and (o.install_date is null or (i.installed_at at time zone 'UTC')::date < o.install_date)
), completed as (
    select distinct st.app_id, st.user_id
    from raw_steps st
    join users u on u.app_id = st.app_id and u.user_id = st.user_id
    where st.step = 'onboarding_complete'
), first_installs as materialized (
    select distinct on (i.app_id, i.user_id) i.app_id, i.user_id,
           (i.installed_at at time zone 'UTC')::date as install_date
    from raw_installs i
    join users u on u.app_id = i.app_id and u.user_id = i.user_id
    order by i.app_id, i.user_id, i.installed_at
), returned as (
    select distinct f.app_id, f.user_id
    from first_installs f
    join raw_opens o on o.app_id = f.app_id and o.user_id = f.user_id
    where o.opened_at >= (f.install_date + 1)::timestamp at time zone 'UTC'
      and o.opened_at < (f.install_date + 2)::timestamp at time zone 'UTC'
      and o.opened_at >= ((select min(install_date) from first_installs) + 1)::timestamp at time zone 'UTC'
)
insert into int_friction_outcomes as o (app_id, user_id, completed, install_date, returned_d1)
select u.app_id, u.user_id, c.user_id is not null, f.install_date, r.user_id is not null
from users u
left join completed c on c.app_id = u.app_id and c.user_id = u.user_id
left join first_installs f on f.app_id = u.app_id and f.user_id = u.user_id
left join returned r on r.app_id = u.app_id and r.user_id = u.user_id
on conflict (app_id, user_id) do update
set completed = excluded.completed, install_date = excluded.install_date, returned_d1 = excluded.returned_d1
