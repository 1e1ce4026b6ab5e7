-- apps: the apps that compute has covered, with the date their data reaches, the day rule the
-- metrics were computed under and the installs counted, largest first (the report shows one app at a time).
-- Grain: one row per app_id. Reads: compute_state, computed_under, fct_networks.
select s.app_id,
       s.data_through_date::text as data_through_date,
       to_char(s.computed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as computed_at,
       coalesce((select c.day_rule from computed_under c where c.lane = 'metrics'), 'calendar') as day_rule,
       coalesce((select n.installs from fct_networks n where n.app_id = s.app_id and n.network = 'all'), 0) as installs
from compute_state s
order by installs desc, s.app_id;
