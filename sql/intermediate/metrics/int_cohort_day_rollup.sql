-- int_cohort_day_rollup: rebuilds the day rollup for the scope's cohort days from the scope users'
-- days and their facts. Day rows are sparse (no row = zero on a mature day); each user adds one
-- last_active_users count at least(last active day, max_day), from which rolling retention is
-- derived. Day rows whose every count and sum is zero are not kept (a missing row reads as zero),
-- so folding in new rows (delta_rollups) can drop cells that become empty. A rebuild of the whole
-- history computes the same cells in the client instead (UserDaysTable).
-- Grain: one row per (app_id, cohort_date, network, campaign, country, platform, day_n).
-- Reads: compute_scope, int_user_facts, scope_user_days, compute_settings, and int_cohort_rollup
-- as int_cohort_rollups.sql just wrote it (the slices).
-- The users' days are summed by a small integer per slice (cohort, network, campaign, country,
-- platform), numbered from the cohort rollup just written, instead of by the slice's six columns:
-- 2.6M rows (at 300k users) hashed by two integers instead of by four texts, a date and the app,
-- and the cells sorted by integers (6.8-9.6 s against 10.3-12.4 s for this statement, in psql, in
-- different hours). Revenue is summed only where it is not zero: a numeric sum keeps a state per
-- cell even for zeros.
with settings as (
    select max_day from compute_settings where app_id = ''
), slices as materialized (
    -- numbered in the day rollup's key order (migration 0046) with the rank of their cohort, so
    -- the cells are written in key order by integers alone
    select (dense_rank() over (order by r.app_id, r.cohort_date))::integer as cohort_rank,
           (row_number() over (order by r.app_id, r.cohort_date, r.network, r.campaign, r.country,
                                        r.platform))::integer as slice,
           r.app_id, r.cohort_date, r.network, r.campaign, r.country, r.platform
    from int_cohort_rollup r
    join compute_scope sc on sc.app_id = r.app_id and sc.cohort_date = r.cohort_date
), scoped as (
    -- Only the columns below: the facts' whole rows are 350 bytes at 300k users. Every scope
    -- user's facts have their slice; the slice is left joined for the estimate: joined on six
    -- columns of a CTE, the facts were taken for one row, which invites a plan that scans the
    -- users' days once per user (a left join keeps at least every fact).
    select f.app_id, f.user_id, g.slice, f.first_purchase_day, f.last_active_day
    from int_user_facts f
    join compute_scope sc on sc.app_id = f.app_id and sc.cohort_date = f.cohort_date
    left join slices g on g.app_id = f.app_id and g.cohort_date = f.cohort_date and g.network = f.network
                      and g.campaign = f.campaign and g.country = f.country and g.platform = f.platform
), contributions as (
    select f.slice, d.day_n,
           d.active::integer as active_users, 0 as last_active_users, nullif(d.revenue_usd, 0) as revenue_usd,
           (d.purchases > 0)::integer as payers,
           (d.purchases > 0 and d.day_n = f.first_purchase_day)::integer as new_payers
    from scope_user_days d
    join scoped f on f.app_id = d.app_id and f.user_id = d.user_id
    cross join settings s
    where d.day_n <= s.max_day
    union all
    select f.slice, least(f.last_active_day, s.max_day), 0, 1, null, 0, 0
    from scoped f
    cross join settings s
), cells as (
    select slice, day_n,
           sum(active_users) as active_users, sum(last_active_users) as last_active_users,
           coalesce(sum(revenue_usd), 0) as revenue_usd, sum(payers) as payers, sum(new_payers) as new_payers
    from contributions
    group by slice, day_n
    having sum(active_users) <> 0 or sum(last_active_users) <> 0 or sum(revenue_usd) <> 0 or sum(payers) <> 0
        or sum(new_payers) <> 0
)
insert into int_cohort_day_rollup
select g.app_id, g.cohort_date, g.network, g.campaign, g.country, g.platform, c.day_n,
       c.active_users, c.last_active_users, c.revenue_usd::numeric(20,6), c.payers, c.new_payers
from cells c
join slices g on g.slice = c.slice
-- in key order (migration 0046), so a daily fold's cells lie together
order by g.cohort_rank, c.day_n, g.slice;
