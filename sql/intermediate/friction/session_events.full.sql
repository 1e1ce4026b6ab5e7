-- session_events.full: session_events.sql for a rebuild of every session. Every `ux` event, read in
-- the order of raw_ux's session index (migrations 0041 and 0123: user, app, session) so each
-- session's events arrive together and rows flow from the first fetch; the reader orders a
-- session's events by time. No scope is joined: the sessions to rebuild are all of them, and
-- finding them took longer than reading their events. The platform is left null here and set on
-- the episodes afterwards (fct_friction_episodes.platforms.full.sql). Keyboard will_*
-- notifications are left out, as in session_events.sql. The columns are session_events.sql's, in
-- its order: the reader decodes them by position (FrictionComputation.event).
-- Grain: one row per ux event. Reads: raw_ux.
select u.app_id, u.user_id, u.session_id, null::text as platform,
       extract(epoch from u.occurred_at)::float8 as occurred_epoch,
       u.screen, u.type, u.phase, u.orientation,
       u.feedback_shown, u.permission, u.guidance_shown, u.field, u.message_shown, u.bad_state,
       u.input_mode,
       u.kb_x, u.kb_y, u.kb_w, u.kb_h,
       u.focus_x, u.focus_y, u.focus_w, u.focus_h,
       u.action_x, u.action_y, u.action_w, u.action_h,
       u.caret_y, u.screen_w, u.screen_h, u.event_id
from raw_ux u
where u.type <> 'keyboard' or u.phase is null or u.phase not in ('will_show', 'will_hide', 'will_change_frame')
order by u.user_id, u.app_id, u.session_id
