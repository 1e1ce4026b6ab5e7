-- identity_dirty: marks for compute the cohorts a move of devices to their users changes
-- (dirty_cohort_days): the installs of each device's person and of its user (the user may move
-- to the device's earlier cohort; the device's person leaves its own), the cohorts their facts
-- hold, and the cohorts of the users they invited (whose inviter, and the inviter's cohort,
-- change). The moved rows keep the file_id compute folded them in with, so without these marks
-- an incremental compute would not look at them again.
-- Grain: dirty_cohort_days one row per (app_id, cohort_date) (the install's UTC date, or the
-- facts' cohort date; compute widens each by a day either side). Inputs: stage_identity_moves,
-- raw_installs, int_user_facts.
with people as materialized (
    select app_id, user_id from stage_identity_moves
    union
    select app_id, 'device:' || device_id from stage_identity_moves
), touched as (
    select i.app_id, (i.installed_at at time zone 'UTC')::date as cohort_date
    from people p
    join raw_installs i on i.app_id = p.app_id and i.user_id = p.user_id
    union
    select f.app_id, f.cohort_date
    from people p
    join int_user_facts f on f.app_id = p.app_id and f.user_id = p.user_id
    union
    select f.app_id, f.cohort_date
    from people p
    join int_user_facts f on f.app_id = p.app_id and f.inviter_user_id = p.user_id
)
insert into dirty_cohort_days (app_id, cohort_date)
select app_id, cohort_date from touched
on conflict do nothing
