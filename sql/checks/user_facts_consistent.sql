-- user_facts_consistent: users whose facts contradict each other: steps before the install,
-- funnel steps out of order, a regular user below the threshold, or a cohort date that is not
-- the install's date in the reporting time zone. Grain: one row per offending user.
-- Reads: int_user_facts, compute_settings.
select f.app_id, f.user_id
from int_user_facts f
cross join (select * from compute_settings where app_id = '') s
where f.cohort_date <> (timezone(s.time_zone, f.installed_at))::date
   or f.first_open_at < f.installed_at
   or f.funnel_onboarded_at < f.funnel_open_at
   or f.funnel_regular_at < f.funnel_onboarded_at
   or f.funnel_purchase_at < f.funnel_regular_at
   or (f.regular_at is not null and f.regular_opens < s.regular_opens)
   or f.installs < 1
