-- retention_data_end: the latest moment of any loaded event of one app, from which a retention
-- query takes its default as-of date (that moment's date in the retention's time zone).
-- Grain: one row. Inputs: $1 app_id. Reads: analysis_events.
select (extract(epoch from max(e.occurred_at)) * 1000000)::bigint as last_micros
from analysis_events e
where e.app_id = $1
