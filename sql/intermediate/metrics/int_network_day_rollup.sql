-- int_network_day_rollup: the day rollup of the scope's cohort days summed over campaign,
-- country and platform. Grain: one row per (app_id, cohort_date, network, day_n) with a count or
-- sum not zero. Reads: int_cohort_day_rollup (as just rebuilt), compute_scope.
insert into int_network_day_rollup
select d.app_id, d.cohort_date, d.network, d.day_n, sum(d.active_users), sum(d.last_active_users),
       sum(d.revenue_usd), sum(d.payers), sum(d.new_payers)
from int_cohort_day_rollup d
join compute_scope sc on sc.app_id = d.app_id and sc.cohort_date = d.cohort_date
group by d.cohort_date, d.day_n, d.network, d.app_id
having sum(d.active_users) <> 0 or sum(d.last_active_users) <> 0 or sum(d.revenue_usd) <> 0
    or sum(d.payers) <> 0 or sum(d.new_payers) <> 0;

