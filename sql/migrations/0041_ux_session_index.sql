-- 0041_ux_session_index: finds a session's `ux` events without reading all telemetry. Friction
-- rescans the sessions with an event on the new days, older events included; without this
-- index that read every partition of raw_ux in full (4.8 s of a daily run at 5.7M ux events,
-- 0.46 s with it). Repeated user and session ids deduplicate, so the index stays small.
-- Grain: one index entry per ux event. Reads: raw_ux.
create index raw_ux_by_session on raw_ux (app_id, user_id, session_id);
