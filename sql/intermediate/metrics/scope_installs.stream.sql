-- scope_installs.stream: the scope's installs as the client's pass over the whole history's
-- users (UserDaysTable) reads them: the user, the install moment, the cohort date as days since
-- 1970, and the slice the user's cells are counted in.
-- Grain: one row per (app_id, user_id) of scope_installs. Reads: scope_installs.
select si.app_id, si.user_id, si.installed_at, (si.cohort_date - date '1970-01-01')::bigint as cohort_day,
       si.network, si.campaign, si.country, si.platform
from scope_installs si
