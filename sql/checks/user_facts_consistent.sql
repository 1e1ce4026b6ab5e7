-- user_facts_consistent: users whose facts contradict each other: steps before the install,
-- funnel steps out of order, a regular user below the threshold, or a cohort date that is not
-- the install's date in the reporting time zone. Only the facts this run wrote are checked (the
-- others were checked by the run that wrote them): every user of the scope's cohorts (all of them
-- after a full rebuild) and the users the fold updated (delta_new_facts holds their facts as they
-- now are). Checking every user's facts cost 0.25 s of a day's run at 1M users.
-- Grain: one row per offending user. Reads: int_user_facts, compute_scope, delta_new_facts,
-- compute_settings.
with written as (
    select f.app_id, f.user_id, f.cohort_date, f.installed_at, f.first_open_at, f.funnel_open_at,
           f.funnel_onboarded_at, f.funnel_regular_at, f.funnel_purchase_at, f.regular_at,
           f.regular_opens, f.installs
    from int_user_facts f
    join compute_scope sc on sc.app_id = f.app_id and sc.cohort_date = f.cohort_date
    union all
    select n.app_id, n.user_id, n.cohort_date, n.installed_at, n.first_open_at, n.funnel_open_at,
           n.funnel_onboarded_at, n.funnel_regular_at, n.funnel_purchase_at, n.regular_at,
           n.regular_opens, n.installs
    from delta_new_facts n
    where not exists (
        select 1 from compute_scope sc where sc.app_id = n.app_id and sc.cohort_date = n.cohort_date)
)
select f.app_id, f.user_id
from written f
cross join (select * from compute_settings where app_id = '') s
where f.cohort_date <> (timezone(s.time_zone, f.installed_at))::date
   or f.first_open_at < f.installed_at
   or f.funnel_onboarded_at < f.funnel_open_at
   or f.funnel_regular_at < f.funnel_onboarded_at
   or f.funnel_purchase_at < f.funnel_regular_at
   or (f.regular_at is not null and f.regular_opens < s.regular_opens)
   or f.installs < 1
