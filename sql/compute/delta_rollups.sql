-- delta_rollups: applies the fold to the cohort rollups: each delta user's contribution as
-- it was (delta_old_facts, delta_old_days) is subtracted and the new one (their facts now, and
-- scope_user_days or delta_fast_days) added, with the rules of int_cohort_rollups; cells left
-- without contributions are deleted, so the rollups equal a rebuild (whose day rows with only
-- zeros are not kept). Cells whose difference is zero (the users' unchanged days) are left alone.
-- Only the days at hand are compared (all of a general user's, the compared days of the others;
-- see delta_user_days.sql), so the cost follows the new rows, not the users' history.
-- The day rollup's differences (delta_day_cells) also go, summed, to int_network_day_rollup.
-- Grain: the rollups' own. Reads: delta_users, int_user_facts, delta_old_facts, delta_old_days,
-- delta_new_days, scope_user_days, delta_fast_days, compute_settings. Writes delta_day_cells and
-- delta_empty_cells (working tables).
-- The delta users' facts as they are now: those delta_fast_facts.sql updated are there already;
-- the others (the general users, and users whose new rows made no day) are probed per user
-- (offset 0 keeps the planner from scanning every user's facts). Read by each rollup below.
insert into delta_new_facts
select f.*
from (select * from delta_users order by app_id, user_id) u
cross join lateral (
    select * from int_user_facts x where x.app_id = u.app_id and x.user_id = u.user_id offset 0
) f
where not exists (select 1 from delta_new_facts n where n.app_id = u.app_id and n.user_id = u.user_id);

analyze delta_new_facts (app_id, user_id);

with changes as (
    select 1 as sign, f.*
    from delta_new_facts f
    union all
    select -1, o.* from delta_old_facts o
)
insert into int_cohort_rollup as r
select c.app_id, c.cohort_date, c.network, c.campaign, c.country, c.platform,
       sum(c.sign),
       coalesce(sum(c.sign) filter (where c.acquisition = 'paid'), 0),
       coalesce(sum(c.sign) filter (where c.acquisition = 'organic'), 0),
       coalesce(sum(c.sign) filter (where c.acquisition = 'viral'), 0),
       sum(c.sign * (c.installs - 1)),
       coalesce(sum(c.sign) filter (where c.first_open_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.onboarded_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.regular_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.first_purchase_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.funnel_open_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.funnel_onboarded_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.funnel_regular_at is not null), 0),
       coalesce(sum(c.sign) filter (where c.funnel_purchase_at is not null), 0),
       sum(c.sign * c.invites_sent)
from changes c
group by c.cohort_date, c.network, c.campaign, c.country, c.platform, c.app_id
having sum(c.sign) <> 0 or sum(c.sign * (c.installs - 1)) <> 0 or sum(c.sign * c.invites_sent) <> 0
    or sum(c.sign) filter (where c.acquisition = 'paid') <> 0
    or sum(c.sign) filter (where c.acquisition = 'organic') <> 0
    or sum(c.sign) filter (where c.acquisition = 'viral') <> 0
    or sum(c.sign) filter (where c.first_open_at is not null) <> 0
    or sum(c.sign) filter (where c.onboarded_at is not null) <> 0
    or sum(c.sign) filter (where c.regular_at is not null) <> 0
    or sum(c.sign) filter (where c.first_purchase_at is not null) <> 0
    or sum(c.sign) filter (where c.funnel_open_at is not null) <> 0
    or sum(c.sign) filter (where c.funnel_onboarded_at is not null) <> 0
    or sum(c.sign) filter (where c.funnel_regular_at is not null) <> 0
    or sum(c.sign) filter (where c.funnel_purchase_at is not null) <> 0
on conflict (app_id, cohort_date, network, campaign, country, platform) do update
set installs = r.installs + excluded.installs,
    paid_installs = r.paid_installs + excluded.paid_installs,
    organic_installs = r.organic_installs + excluded.organic_installs,
    viral_installs = r.viral_installs + excluded.viral_installs,
    reinstalls = r.reinstalls + excluded.reinstalls,
    openers = r.openers + excluded.openers,
    onboarded = r.onboarded + excluded.onboarded,
    regular_users = r.regular_users + excluded.regular_users,
    payers = r.payers + excluded.payers,
    funnel_open = r.funnel_open + excluded.funnel_open,
    funnel_onboarded = r.funnel_onboarded + excluded.funnel_onboarded,
    funnel_regular = r.funnel_regular + excluded.funnel_regular,
    funnel_purchase = r.funnel_purchase + excluded.funnel_purchase,
    invites_sent = r.invites_sent + excluded.invites_sent;

delete from int_cohort_rollup where installs = 0;

with settings as (
    select max_day from compute_settings where app_id = ''
), facts as (
    select 1 as sign, f.app_id, f.user_id, f.cohort_date, f.network, f.campaign, f.country, f.platform,
           f.first_purchase_day, f.last_active_day
    from delta_new_facts f
    union all
    select -1, o.app_id, o.user_id, o.cohort_date, o.network, o.campaign, o.country, o.platform,
           o.first_purchase_day, o.last_active_day
    from delta_old_facts o
), days as (
    -- every day at hand, before (delta_old_days) and after (the merged days): a day the new rows
    -- did not change contributes the same to both and cancels out in the sums below
    select 1 as sign, d.app_id, d.user_id, d.day_n, d.active, d.revenue_usd, d.purchases
    from (select * from scope_user_days union all select * from delta_fast_days) d
    union all
    select -1, d.app_id, d.user_id, d.day_n, d.active, d.revenue_usd, d.purchases
    from delta_old_days d
), contributions as (
    select f.app_id, f.cohort_date, f.network, f.campaign, f.country, f.platform, d.day_n,
           f.sign * d.active::integer as active_users, 0 as last_active_users, f.sign * d.revenue_usd as revenue_usd,
           f.sign * (d.purchases > 0)::integer as payers,
           f.sign * (d.purchases > 0 and d.day_n = f.first_purchase_day)::integer as new_payers
    from days d
    join facts f on f.app_id = d.app_id and f.user_id = d.user_id and f.sign = d.sign
    cross join settings s
    where d.day_n <= s.max_day
    union all
    select f.app_id, f.cohort_date, f.network, f.campaign, f.country, f.platform,
           least(f.last_active_day, s.max_day), 0, f.sign, 0, 0, 0
    from facts f
    cross join settings s
)
insert into delta_day_cells
select app_id, cohort_date, network, campaign, country, platform, day_n,
       sum(active_users), sum(last_active_users), sum(revenue_usd), sum(payers), sum(new_payers)
from contributions
group by cohort_date, day_n, network, campaign, country, platform, app_id
having sum(active_users) <> 0 or sum(last_active_users) <> 0 or sum(revenue_usd) <> 0 or sum(payers) <> 0
    or sum(new_payers) <> 0;

-- Cells the differences leave empty are noted as they are written (delta_empty_cells) and deleted
-- by key; deleting every empty cell scanned the whole day rollup on each run. A fold only adds
-- activity (a user's last active day moves to a day they were active on), so none is expected;
-- the delete keeps the rollup equal to a rebuild whatever the rows.
with written as (
    insert into int_cohort_day_rollup as r
    select * from delta_day_cells
    on conflict (app_id, cohort_date, network, campaign, country, platform, day_n) do update
    set active_users = r.active_users + excluded.active_users,
        last_active_users = r.last_active_users + excluded.last_active_users,
        revenue_usd = r.revenue_usd + excluded.revenue_usd,
        payers = r.payers + excluded.payers,
        new_payers = r.new_payers + excluded.new_payers
    returning r.*
)
insert into delta_empty_cells
select * from written
where active_users = 0 and last_active_users = 0 and revenue_usd = 0 and payers = 0 and new_payers = 0;

delete from int_cohort_day_rollup r
using delta_empty_cells e
where r.app_id = e.app_id and r.cohort_date = e.cohort_date and r.network = e.network
  and r.campaign = e.campaign and r.country = e.country and r.platform = e.platform and r.day_n = e.day_n;

-- The same differences summed over campaign, country and platform.
insert into int_network_day_rollup as r
select app_id, cohort_date, network, day_n, sum(active_users), sum(last_active_users), sum(revenue_usd),
       sum(payers), sum(new_payers)
from delta_day_cells
group by cohort_date, day_n, network, app_id
having sum(active_users) <> 0 or sum(last_active_users) <> 0 or sum(revenue_usd) <> 0 or sum(payers) <> 0
    or sum(new_payers) <> 0
on conflict (app_id, cohort_date, network, day_n) do update
set active_users = r.active_users + excluded.active_users,
    last_active_users = r.last_active_users + excluded.last_active_users,
    revenue_usd = r.revenue_usd + excluded.revenue_usd,
    payers = r.payers + excluded.payers,
    new_payers = r.new_payers + excluded.new_payers;

delete from int_network_day_rollup
where active_users = 0 and last_active_users = 0 and revenue_usd = 0 and payers = 0 and new_payers = 0;

with brackets as (
    select b.bracket, b.bracket_index::integer - 1 as bracket_index
    from compute_settings s
    cross join lateral unnest(s.brackets) with ordinality as b (bracket, bracket_index)
    where s.app_id = ''
), facts as (
    select 1 as sign, f.app_id, f.user_id, f.cohort_date, f.network, f.campaign, f.country, f.platform
    from delta_new_facts f
    union all
    select -1, o.app_id, o.user_id, o.cohort_date, o.network, o.campaign, o.country, o.platform
    from delta_old_facts o
), active_in_bracket as (
    -- as for the days: a bracket whose days did not change is active on both sides and cancels
    select distinct 1 as sign, d.app_id, d.user_id, b.bracket_index
    from (select * from scope_user_days union all select * from delta_fast_days) d
    join brackets b on b.bracket @> d.day_n
    where d.active
    union all
    select distinct -1, d.app_id, d.user_id, b.bracket_index
    from delta_old_days d
    join brackets b on b.bracket @> d.day_n
    where d.active
)
insert into int_cohort_bracket_rollup as r
select f.app_id, f.cohort_date, f.network, f.campaign, f.country, f.platform, a.bracket_index, sum(a.sign)
from active_in_bracket a
join facts f on f.app_id = a.app_id and f.user_id = a.user_id and f.sign = a.sign
group by f.cohort_date, a.bracket_index, f.network, f.campaign, f.country, f.platform, f.app_id
having sum(a.sign) <> 0
on conflict (app_id, cohort_date, network, campaign, country, platform, bracket_index) do update
set active_users = r.active_users + excluded.active_users;

delete from int_cohort_bracket_rollup where active_users = 0;
