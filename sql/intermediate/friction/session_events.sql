-- session_events: every `ux` event of the scope's sessions, ordered so each session's events
-- arrive together (read through a cursor in binary; the detectors stream them, one session in
-- memory at a time). The reader puts a session's events in time order, those of the same moment
-- by event id (FrictionComputation.sortByTime): sorted here, they took longer than the stream.
-- Time is seconds since the epoch. Keyboard will_* notifications are left out
-- here: they are intentions (their frames may be zero) and the detectors ignore them, and they
-- are over a third of all telemetry.
-- A rebuild of every session reads session_events.full.sql instead.
-- Grain: one row per ux event. Reads: friction_scope_sessions, raw_ux (through raw_ux_by_session,
-- migrations 0041 and 0123, probed for the scope's sessions).
select u.app_id, u.user_id, u.session_id, s.platform,
       extract(epoch from u.occurred_at)::float8 as occurred_epoch,
       u.screen, u.type, u.phase, u.orientation,
       u.feedback_shown, u.permission, u.guidance_shown, u.field, u.message_shown, u.bad_state,
       u.input_mode,
       u.kb_x, u.kb_y, u.kb_w, u.kb_h,
       u.focus_x, u.focus_y, u.focus_w, u.focus_h,
       u.action_x, u.action_y, u.action_w, u.action_h,
       u.caret_y, u.screen_w, u.screen_h, u.event_id
from friction_scope_sessions s
join raw_ux u on u.app_id = s.app_id and u.user_id = s.user_id and u.session_id = s.session_id
where u.type <> 'keyboard' or u.phase is null or u.phase not in ('will_show', 'will_hide', 'will_change_frame')
order by u.user_id, u.app_id, u.session_id
