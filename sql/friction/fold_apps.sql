-- fold_apps: the UTC date of each app's last open, moved on by the window's opens; from every
-- open when $1 (boolean) asks for a rebuild.
-- Grain: one row per app_id in int_friction_apps. Reads: friction_window, raw_opens.
insert into int_friction_apps as a (app_id, last_open_date)
select op.app_id, max((op.opened_at at time zone 'UTC')::date)
from raw_opens op
where $1::boolean
   or (op.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
       and op.file_id in (select file_id from friction_window))
group by op.app_id
on conflict (app_id) do update set last_open_date = greatest(a.last_open_date, excluded.last_open_date)
