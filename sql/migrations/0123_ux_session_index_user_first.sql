-- 0123_ux_session_index_user_first: raw_ux's session index (migration 0041) keyed
-- (user_id, app_id, session_id) instead of (app_id, user_id, session_id): the same lookups, the
-- user id leading. Grain: unchanged, one index entry per ux event. Reads: raw_ux.
--
-- Why: a history's import builds this index on each new month in one sorted pass. A sort tells
-- rows apart by an abbreviation of its first column, and one app's events all share the app id,
-- so every comparison fell through to the user id: 2.15-2.25 s for a month of a 300k-user
-- history's telemetry (1.9M events) against 1.39-1.43 s with the user id first. Every lookup
-- gives the app and the user (a session's events, a funnel's users' events), which either order
-- serves; the whole-history friction read walks the index in its own order.
drop index raw_ux_by_session;
create index raw_ux_by_session on raw_ux (user_id, app_id, session_id);
