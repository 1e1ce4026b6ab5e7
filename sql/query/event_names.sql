-- event_names: every event name of every app, with its count, so a query over a name no event of
-- its app has can answer 0 and still point at the nearest names and the apps that have it.
-- Read only when a query names an unknown event. Grain: one row per (app, event name).
-- Reads: analysis_events.
select e.app_id, e.event, count(*) as events
from analysis_events e
group by e.app_id, e.event
order by e.app_id, e.event
