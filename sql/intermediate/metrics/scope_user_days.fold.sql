-- scope_user_days.fold: what the window's rows add to the days of the delta users (delta_new_days,
-- by the rules of int_scope_user_days), with their installs (scope_installs: their unchanged first
-- install from their facts, with the window's reinstalls counted). scope_user_activity.sql then sums the
-- new days per user, and scope_user_state.fold.sql and int_user_facts.fold.sql add that to the state
-- the facts keep: nothing reads the users' earlier rows, so a fold costs what the new rows hold.
-- A purchase is converted at its currency's rate of its UTC date (currency_rate_days, else the
-- currency's span: currency_rate_days.sql); money without a rate counts 0 and is listed in
-- money_unconverted.
-- Grain: delta_new_days one row per (app_id, user_id, day_n) the window touches; scope_installs
-- one row per delta user. Reads: delta_users, delta_old_facts, compute_window, raw_installs,
-- raw_opens, raw_retention, raw_purchases, raw_invites, currency_rate_days, currency_rate_spans, compute_settings. Rows
-- are found between the lowest and highest file_id of the window (index on file_id). The working
-- tables are analyzed on their join keys only: row counts and key statistics are what the plans
-- need, and sampling the array columns cost 0.1-0.2 s a table. A refund (negative revenue) nets its
-- day's revenue and is no purchase, as in scope_user_days.sql.
truncate scope_installs;
truncate scope_user_days;
truncate delta_new_days;

analyze delta_old_facts (app_id, user_id);

-- Their installs as they stand, plus the window's reinstalls (every window install of a delta
-- user is later than their first: an earlier one put their cohort in the scope).
with reinstalls as (
    select i.app_id, i.user_id, count(*) as installs
    from raw_installs i
    join delta_users u on u.app_id = i.app_id and u.user_id = i.user_id
    where i.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and i.file_id in (select file_id from compute_window)
    group by i.app_id, i.user_id
)
insert into scope_installs
select o.app_id, o.user_id, o.installed_at, o.cohort_date, o.network, o.campaign, o.country, o.platform,
       o.referrer_user_id, o.invite_id, o.installs + coalesce(r.installs, 0)
from delta_old_facts o
left join reinstalls r on r.app_id = o.app_id and r.user_id = o.user_id;

analyze scope_installs (app_id, user_id, referrer_user_id, invite_id);

with settings as (
    select * from compute_settings where app_id = ''
), events (app_id, user_id, day_n, opens, active, revenue_usd, purchases, invites, first_open_at,
            regular_open_times, purchase_times, last_event_at) as (
    -- the day number in an inner select list (Citus refuses a lateral subquery without FROM
    -- calling the stable cohort_day_number)
    select o.app_id, o.user_id, o.day_n, 1, true, 0, 0, 0, o.opened_at,
           case when o.day_n between 1 and s.regular_days then array[o.opened_at] end, null::timestamptz[],
           o.opened_at
    from (
        select o.app_id, o.user_id, o.opened_at,
               cohort_day_number(o.opened_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule) as day_n
        from raw_opens o
        join scope_installs si on si.app_id = o.app_id and si.user_id = o.user_id
        cross join settings s
        where o.file_id between (select min(file_id) from compute_window)
                  and (select max(file_id) from compute_window)
          and o.file_id in (select file_id from compute_window)
          and o.opened_at >= si.installed_at
    ) o
    cross join settings s
    union all
    select r.app_id, r.user_id, r.day, 0, true, 0, 0, 0, null, null, null, r.reported_at
    from raw_retention r
    join scope_installs si on si.app_id = r.app_id and si.user_id = r.user_id
    where r.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and r.file_id in (select file_id from compute_window)
      and r.day >= 0
    union all
    select p.app_id, p.user_id,
           cohort_day_number(p.purchased_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           0, false, p.revenue * coalesce(cd.usd_per_unit, case when (p.purchased_at at time zone 'UTC')::date < cs.first_day then cs.before_usd else cs.after_usd end, 0) * s.revenue_share,
           case when p.revenue < 0 then 0 else 1 end, 0, null, null,
           case when p.revenue < 0 then null else array[p.purchased_at] end, p.purchased_at
    from raw_purchases p
    join scope_installs si on si.app_id = p.app_id and si.user_id = p.user_id
    left join currency_rate_spans cs on cs.currency = p.currency
    left join currency_rate_days cd on cd.currency = p.currency and cd.day = (p.purchased_at at time zone 'UTC')::date
    cross join settings s
    where p.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and p.file_id in (select file_id from compute_window)
      and p.purchased_at >= si.installed_at
    union all
    select v.app_id, v.user_id,
           cohort_day_number(v.sent_at, si.installed_at, si.cohort_date, s.time_zone, s.day_rule),
           0, false, 0, 0, 1, null, null, null, v.sent_at
    from raw_invites v
    join scope_installs si on si.app_id = v.app_id and si.user_id = v.user_id
    cross join settings s
    where v.file_id between (select min(file_id) from compute_window)
              and (select max(file_id) from compute_window)
      and v.file_id in (select file_id from compute_window)
      and v.sent_at >= si.installed_at
)
insert into delta_new_days
select e.app_id, e.user_id, e.day_n, sum(e.opens), bool_or(e.active), sum(e.revenue_usd)::numeric(20,6), sum(e.purchases),
       sum(e.invites), min(e.first_open_at), array_cat_agg(e.regular_open_times), array_cat_agg(e.purchase_times),
       max(e.last_event_at)
from events e
where e.day_n >= 0
group by e.app_id, e.user_id, e.day_n;

analyze delta_new_days (app_id, user_id, day_n);
