-- int_user_days: stores the days just rebuilt from the raw rows (scope_user_days) for the scope
-- users, replacing what was stored for them and for the users who left the scope's cohorts, so a
-- later run can fold new rows into them without rereading the history.
-- Grain: one row per (app_id, user_id, day_n). Reads: scope_user_days, scope_installs,
-- int_user_facts, compute_scope. Runs before int_user_facts replaces the scope cohorts' facts.
delete from int_user_days d
using scope_installs si
where d.app_id = si.app_id and d.user_id = si.user_id;

delete from int_user_days d
using int_user_facts f, compute_scope sc
where f.app_id = sc.app_id and f.cohort_date = sc.cohort_date
  and d.app_id = f.app_id and d.user_id = f.user_id;

insert into int_user_days select * from scope_user_days;
