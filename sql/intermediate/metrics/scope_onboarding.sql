-- scope_onboarding: the onboarding-step times (the configured step, at or after the install) of
-- the users in scope_installs, for int_user_facts.sql: the scope's users in a rebuild, the general
-- users in a fold (int_user_facts.fold.sql has left only them there). Users without such a step get
-- no row.
-- Grain: one row per user. Reads: scope_installs, raw_steps, compute_settings.
truncate scope_onboarding;

-- One join of the scope's users to their steps of the configured step (a correlated probe per
-- user, as scope_installs.sql reads installs, is refused by Citus against the temporary
-- scope_installs); scope_installs is analyzed, so a few users are probed through
-- raw_steps_by_user and a wide scope scans the steps.
insert into scope_onboarding
select st.app_id, st.user_id, array_agg(st.occurred_at order by st.occurred_at)
from scope_installs si
cross join (select onboarding_step from compute_settings where app_id = '') s
join raw_steps st
  on st.app_id = si.app_id and st.user_id = si.user_id and st.step = s.onboarding_step
 and st.occurred_at >= si.installed_at
group by st.user_id, st.app_id;
