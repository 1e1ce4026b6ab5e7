-- funnel_tied_users: a fragment of funnel_events.sql: only some users, their events in order.
-- The funnel runner reads the events unsorted and orders each user's by time itself; a user
-- whose events at one instant differ (in the steps they fill or their breakdown value) is read
-- again here, in the order that settles such ties: the source kind, then the event id.
-- Grain: the users' events. Inputs: the apps and users placeholders (parameters: text[] each,
-- the i-th app with the i-th user). Reads: nothing more.
and (e.app_id, e.user_id) in (select t.app_id, t.user_id from unnest({{apps}}::text[], {{users}}::text[]) as t (app_id, user_id))
order by e.app_id, e.user_id, e.occurred_at, e.kind, e.event_id
