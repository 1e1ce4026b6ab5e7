-- int_cohort_rollups.fold: applies the fold to the cohort rollups. The cohort rollup takes each delta
-- user's facts as they were (delta_old_facts) out and their facts now in, with the rules of
-- int_cohort_rollups; the day and bracket rollups get what the new days (delta_new_days) add,
-- judged against the days the user was already active and bought on (kept in their facts), and
-- the moves of their first purchase and last active days. Cells left without contributions are
-- deleted, so the rollups equal a rebuild (whose rows with only zeros are not kept). Nothing
-- reads the users' earlier rows, so the cost follows the new rows, not the users' history.
-- The day rollup's differences (delta_day_cells) also go, summed, to int_network_day_rollup
-- (delta_network_cells, which fct_retention.sql reads too).
-- Grain: the rollups' own. Reads: delta_users, int_user_facts, delta_old_facts, delta_new_days,
-- compute_settings. Writes delta_new_facts, delta_day_cells, delta_network_cells and
-- delta_empty_cells (working tables).
-- The delta users' facts as they are now: those int_user_facts.fold.sql updated are there already;
-- the others (the general users, and users whose new rows made no day) are joined by key
-- (delta_users is analyzed, so a day's few users are probed through the primary key; a per-user
-- lateral probe and a correlated "not exists" are refused by Citus against the temporary
-- tables). Read by each rollup below.
insert into delta_new_facts
select f.*
from delta_users u
join int_user_facts f on f.app_id = u.app_id and f.user_id = u.user_id
left join delta_new_facts n on n.app_id = u.app_id and n.user_id = u.user_id
where n.user_id is null;

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

-- A delta user's cohort and slice do not change (their first install did not), so each new day
-- adds to its cell: an active day the user was not active on before (their stored active_days)
-- one active user, its revenue, a day with purchases they had not bought on before one payer.
-- The first purchase day (new payers) and the last active day (last active users) move from
-- their old facts' value to the new one.
with settings as (
    select max_day from compute_settings where app_id = ''
), facts as (
    select 1 as sign, f.app_id, f.cohort_date, f.network, f.campaign, f.country, f.platform,
           f.first_purchase_day, f.last_active_day
    from delta_new_facts f
    union all
    select -1, o.app_id, o.cohort_date, o.network, o.campaign, o.country, o.platform,
           o.first_purchase_day, o.last_active_day
    from delta_old_facts o
), contributions as (
    select o.app_id, o.cohort_date, o.network, o.campaign, o.country, o.platform, n.day_n,
           (n.active and not n.day_n = any (o.active_days))::integer as active_users, 0 as last_active_users,
           n.revenue_usd, (n.purchases > 0 and not n.day_n = any (o.purchase_days))::integer as payers,
           0 as new_payers
    from delta_new_days n
    join delta_old_facts o on o.app_id = n.app_id and o.user_id = n.user_id
    cross join settings s
    where n.day_n <= s.max_day
    union all
    select f.app_id, f.cohort_date, f.network, f.campaign, f.country, f.platform, f.first_purchase_day,
           0, 0, 0, 0, f.sign
    from facts f
    cross join settings s
    where f.first_purchase_day <= s.max_day
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
insert into delta_network_cells
select app_id, cohort_date, network, day_n, sum(active_users), sum(last_active_users), sum(revenue_usd),
       sum(payers), sum(new_payers)
from delta_day_cells
group by cohort_date, day_n, network, app_id
having sum(active_users) <> 0 or sum(last_active_users) <> 0 or sum(revenue_usd) <> 0 or sum(payers) <> 0
    or sum(new_payers) <> 0;

insert into int_network_day_rollup as r
select * from delta_network_cells
on conflict (app_id, cohort_date, network, day_n) do update
set active_users = r.active_users + excluded.active_users,
    last_active_users = r.last_active_users + excluded.last_active_users,
    revenue_usd = r.revenue_usd + excluded.revenue_usd,
    payers = r.payers + excluded.payers,
    new_payers = r.new_payers + excluded.new_payers;

delete from int_network_day_rollup
where active_users = 0 and last_active_users = 0 and revenue_usd = 0 and payers = 0 and new_payers = 0;

-- A bracket the user becomes active in: a new active day in it, and none of their stored active
-- days.
with brackets as (
    select b.bracket, b.bracket_index::integer - 1 as bracket_index
    from compute_settings s
    cross join lateral unnest(s.brackets) with ordinality as b (bracket, bracket_index)
    where s.app_id = ''
), new_in_bracket as (
    select distinct n.app_id, n.user_id, b.bracket, b.bracket_index
    from delta_new_days n
    join brackets b on b.bracket @> n.day_n
    where n.active
)
insert into int_cohort_bracket_rollup as r
select o.app_id, o.cohort_date, o.network, o.campaign, o.country, o.platform, a.bracket_index, count(*)
from new_in_bracket a
join delta_old_facts o on o.app_id = a.app_id and o.user_id = a.user_id
where not exists (select 1 from unnest(o.active_days) as d where a.bracket @> d)
group by o.cohort_date, a.bracket_index, o.network, o.campaign, o.country, o.platform, o.app_id
on conflict (app_id, cohort_date, network, campaign, country, platform, bracket_index) do update
set active_users = r.active_users + excluded.active_users;
