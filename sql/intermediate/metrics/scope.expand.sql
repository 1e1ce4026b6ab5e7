-- scope.expand: adds to the scope the cohort dates that scope users move into or out of (a late
-- install that predates a user's first install moves them to an earlier cohort), so both
-- cohorts' rollups are rebuilt. Returns the dates added; when there are any, compute reruns
-- int_scope_installs over the wider scope.
-- Grain: one row per added (app_id, cohort_date). Reads: scope_installs, int_user_facts.
insert into compute_scope (app_id, cohort_date)
select distinct si.app_id, si.cohort_date from scope_installs si
union
select distinct f.app_id, f.cohort_date
from int_user_facts f
join scope_installs si on si.app_id = f.app_id and si.user_id = f.user_id
on conflict do nothing
returning app_id, cohort_date
