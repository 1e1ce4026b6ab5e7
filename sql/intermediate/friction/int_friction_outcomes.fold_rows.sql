-- int_friction_outcomes.fold_rows: what the window's rows change in the known outcomes (an incremental run
-- only; int_friction_outcomes.fold.sql has just computed the others from every raw row): an
-- `onboarding_complete` step completes onboarding, and an open within a user's day 1 (bounds kept
-- in the outcome, in the reporting time zone and day rule) is a day-1 return.
-- Grain: int_friction_outcomes rows updated in place. Reads: friction_window, raw_steps,
-- raw_opens. Window rows are found between the lowest and highest file_id of the window.
update int_friction_outcomes o
set completed = true
from (
    select distinct st.app_id, st.user_id
    from raw_steps st
    where st.step = 'onboarding_complete'
      and st.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and st.file_id in (select file_id from friction_window)
) s
where o.app_id = s.app_id and o.user_id = s.user_id and not o.completed;

update int_friction_outcomes o
set returned_d1 = true
from (
    select op.app_id, op.user_id, op.opened_at
    from raw_opens op
    where op.file_id between (select min(file_id) from friction_window) and (select max(file_id) from friction_window)
      and op.file_id in (select file_id from friction_window)
) w
where o.app_id = w.app_id and o.user_id = w.user_id and not o.returned_d1
  and w.opened_at >= o.day1_from and w.opened_at < o.day1_to;
