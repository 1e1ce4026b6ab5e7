-- configuration: the configuration the last compute ran under (its file and every setting), for
-- the reports' "computed under" lines. Grain: at most one row. Reads: compute_configuration.
select source, settings::text as settings,
       to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as recorded_at
from compute_configuration;
