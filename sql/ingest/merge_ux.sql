-- merge_ux: moves one file's staged ux into raw_ux, each event once, and records the
-- (app, cohort day) pairs the new rows touch.
-- Grain: one raw row per new (app_id, event_id). Inputs: stage_ux (the file's valid rows in
-- file order), raw_ux, raw_installs (first installs), $1 = file_id. Writes raw_ux,
-- stage_dirty. Returns the number of rows inserted. The caller holds this kind's merge lock
-- (pg_advisory_xact_lock), so no other transaction inserts ux between the "not exists"
-- check and the insert.
--
-- Within the file the first occurrence of an event wins (ctid = COPY order: the staging table is
-- truncated, then only appended to by COPY in one session). An event already stored is skipped
-- whatever its timestamp ("not exists" on (app_id, event_id) over every partition).
-- Dirty cohorts: the UTC date of the first install of each user the new rows belong to; a user
-- without a known install is marked when the install arrives (merge_installs).
with staged as (
    select distinct on (app_id, event_id)
        event_id, app_id, user_id, session_id, occurred_at, screen, type, phase, orientation,
        feedback_shown, permission, guidance_shown, field, message_shown, bad_state,
        input_mode, kb_x, kb_y, kb_w, kb_h, focus_x, focus_y, focus_w, focus_h, action_x,
        action_y, action_w, action_h, caret_y, screen_w, screen_h
    from stage_ux
    order by app_id, event_id, ctid
),
inserted as (
    insert into raw_ux (
        event_id, app_id, user_id, session_id, occurred_at, screen, type, phase, orientation,
        feedback_shown, permission, guidance_shown, field, message_shown, bad_state,
        input_mode, kb_x, kb_y, kb_w, kb_h, focus_x, focus_y, focus_w, focus_h, action_x,
        action_y, action_w, action_h, caret_y, screen_w, screen_h,
        file_id)
    select s.event_id, s.app_id, s.user_id, s.session_id, s.occurred_at, s.screen, s.type,
           s.phase, s.orientation, s.feedback_shown, s.permission, s.guidance_shown, s.field,
           s.message_shown, s.bad_state, s.input_mode, s.kb_x, s.kb_y, s.kb_w, s.kb_h, s.focus_x,
           s.focus_y, s.focus_w, s.focus_h, s.action_x, s.action_y, s.action_w, s.action_h,
           s.caret_y, s.screen_w, s.screen_h,
           $1::bigint
    from staged s
    where not exists (
        select 1 from raw_ux r where r.app_id = s.app_id and r.event_id = s.event_id)
    returning app_id, user_id
),
dirty as (
    insert into stage_dirty (app_id, cohort_date)
    select u.app_id, (first_install.installed_at at time zone 'UTC')::date
    from (select distinct app_id, user_id from inserted) u
    cross join lateral (
        select r.installed_at
        from raw_installs r
        where r.app_id = u.app_id and r.user_id = u.user_id
        order by r.installed_at
        limit 1
    ) first_install
)
select count(*)::bigint as rows_loaded from inserted;
