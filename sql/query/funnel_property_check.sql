-- funnel_property_check: whether any event of some names carries a property key, so a filter or
-- breakdown on a key no such event has is refused before the query runs, naming the key.
-- Grain: one row. Inputs: $1 app_id, $2 event names (text[]), $3 the property key.
-- Reads: analysis_events.
select exists (
    select 1 from analysis_events e
    where e.app_id = $1 and e.event = any ($2::text[]) and e.properties ? $3
) as known
