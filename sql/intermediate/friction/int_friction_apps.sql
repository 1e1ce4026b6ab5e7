-- int_friction_apps: the end of each app's last day with an open (the local midnight after it in the
-- reporting time zone $2), moved on by the window's opens; from every open when $1 (boolean) asks
-- for a rebuild. A user's day 1 is known once it ends by then (friction_outcome_class).
-- Grain: one row per app_id in int_friction_apps. Reads: friction_window, raw_opens.
insert into int_friction_apps as a (app_id, data_through)
select op.app_id, ((timezone($2::text, max(op.opened_at)))::date + 1)::timestamp at time zone $2::text
from raw_opens op
where $1::boolean
   or (op.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
       and op.file_id in (select file_id from friction_window))
group by op.app_id
on conflict (app_id) do update set data_through = greatest(a.data_through, excluded.data_through)
