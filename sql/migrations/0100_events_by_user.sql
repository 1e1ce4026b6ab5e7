-- 0100_events_by_user: custom events by (app, user, time), so a compute that evaluates the
-- configured funnels for the users of the cohorts it rebuilds (funnel_scope_join.sql) reads those
-- users' events instead of every event ever loaded. At 10M events, for 10k scope users, the
-- statement took 0.19-0.41 s through this index against 1.9-3.5 s scanning every event; for a
-- scope of half the users the planner still scans (performance-log.md). The other kinds a funnel
-- reads by user already have such an index (installs, onboarding steps, telemetry).
-- Grain: one entry per custom event. Reads: raw_events.
create index raw_events_by_user on raw_events (app_id, user_id, occurred_at);
