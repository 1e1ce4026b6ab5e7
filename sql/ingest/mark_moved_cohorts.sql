-- mark_moved_cohorts: marks the cohort a user leaves when a staged install is earlier than the
-- user's known first install (the user's cohort moves to the earlier day, so both days change).
-- Grain: one stage_dirty row per (app_id, cohort_date) left. Inputs: stage_installs, raw_installs
-- (through raw_installs_by_user). Writes stage_dirty.
--
-- Runs before merge_installs, under the same merge lock: probing the index before the insert
-- finds only committed entries (probing it in the inserting statement would meet every new,
-- not-yet-visible entry and fetch its heap tuple). A staged row that turns out to be a duplicate
-- can only over-mark a day, which costs a recompute, never a wrong number.
insert into stage_dirty (app_id, cohort_date)
select distinct s.app_id, (known.installed_at at time zone 'UTC')::date
from (
    select app_id, user_id, min(installed_at) as first_staged_at
    from stage_installs
    group by app_id, user_id
) s
cross join lateral (
    select r.installed_at
    from raw_installs r
    where r.app_id = s.app_id and r.user_id = s.user_id
    order by r.installed_at
    limit 1
) known
where s.first_staged_at < known.installed_at;
