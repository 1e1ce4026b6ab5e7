-- configuration: the configuration the metrics were last computed under (its file and every
-- setting), for the reports' "computed under" lines. Grain: at most one row. Reads:
-- computed_under (the metrics' row).
select source, settings::text as settings,
       to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as recorded_at
from computed_under
where lane = 'metrics';
