-- funnel_checks: for a funnel query's event names, whether the app has any event of each name
-- (an unknown name is refused before the query runs, naming it).
-- Grain: one row per name asked. Inputs: $1 app_id, $2 event names (text[]).
-- Reads: analysis_events.
select n.name,
       exists (select 1 from analysis_events e where e.app_id = $1 and e.event = n.name) as known
from unnest($2::text[]) as n (name)
