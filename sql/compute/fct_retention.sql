-- fct_retention: the cohort x day retention triangle, classic (active on day N) and rolling
-- (active on day N or later), per network and for 'all'. Only mature cells appear: day N of a
-- cohort is mature when cohort_date + N (+1 under the 24-hour rule, whose day N can end on the
-- next date) is on or before the last date with data. A mature cell with nobody active is 0.
-- Grain: one row per (app_id, mode, cohort_date, network, day). Reads: int_cohort_rollup,
-- int_network_day_rollup, compute_state, compute_settings.
-- The triangle is computed whole and compared with the stored one in the same statement, and
-- only the rows that differ are written: a day moves the newest diagonal and part of the rolling
-- cells, and deleting and inserting every row (whose keys come back at once, each probing its dead
-- predecessor in the primary key) cost twice the computation. One hashed full join of the new
-- triangle with the stored one finds the changes; changed cells are updated in place (HOT, with
-- the room that migration 0048 leaves on each page), new ones inserted, gone ones deleted: 200 ms
-- for a 300k-user day where deleting and re-inserting the 23k changed rows took 330-410 ms.
-- The triangle grows with the square of the history (935k rows at a year of daily cohorts), so
-- it is the largest step of a daily run at a year. Writing it whole into a working table before
-- the comparison cost a fifth of that: at a year 3.4-4.3 s against 2.8-3.1 s in one statement
-- (nothing to write); at 90 days the two are even (160-213 ms against 147-197 ms).

with settings as (
    select * from compute_settings where app_id = ''
), sizes as materialized (
    select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
    from int_cohort_rollup
    group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
), slices as materialized (
    -- each (app, network) numbered: the triangle is sorted and joined on integers, where text
    -- keys (one app name in every row) made every comparison a string comparison
    select app_id, network, (row_number() over (order by app_id, network))::integer as slice
    from (select distinct app_id, network from sizes) s
), days as materialized (
    select sl.slice, d.cohort_date, d.day_n, d.active_users, d.last_active_users
    from (
        -- the rollup's rows are per network already (its primary key); only 'all' is summed
        select app_id, cohort_date, network, day_n, active_users, last_active_users
        from int_network_day_rollup
        union all
        select app_id, cohort_date, 'all', day_n, sum(active_users), sum(last_active_users)
        from int_network_day_rollup
        group by app_id, cohort_date, day_n
    ) d
    join slices sl on sl.app_id = d.app_id and sl.network = d.network
), spine as (
    select sl.slice, z.app_id, z.cohort_date, z.network, z.cohort_size, g.day
    from sizes z
    join slices sl on sl.app_id = z.app_id and sl.network = z.network
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
    cross join lateral generate_series(
        0, least(s.max_day, cs.data_through_date - z.cohort_date
                            - case when s.day_rule = 'hours24' then 1 else 0 end)) as g (day)
), cells as (
    select sp.*, coalesce(d.active_users, 0) as classic,
           sp.cohort_size - coalesce(sum(coalesce(d.last_active_users, 0)) over (
               partition by sp.slice, sp.cohort_date order by sp.day
               rows between unbounded preceding and 1 preceding), 0) as rolling
    from spine sp
    left join days d
      on d.slice = sp.slice and d.cohort_date = sp.cohort_date and d.day_n = sp.day
), next as (
    select c.app_id, m.mode, c.cohort_date, c.network, c.cohort_size, c.day,
           case m.mode when 'classic' then c.classic else c.rolling end as retained,
           case when c.cohort_size > 0
                then (case m.mode when 'classic' then c.classic else c.rolling end)::double precision
                     / c.cohort_size
           end as rate
    from cells c
    cross join (values ('classic'), ('rolling')) as m (mode)
), changes as materialized (
    -- Cells keyed alike and equal in value are left alone (nulls compare equal: a rate is null for
    -- an empty cohort). The three writes touch different rows, so one statement holds them.
    select t.ctid as stored_row, n.*
    from next n
    full join fct_retention t
      on t.app_id = n.app_id and t.mode = n.mode and t.cohort_date = n.cohort_date
     and t.network = n.network and t.day = n.day
    where n.app_id is null or t.app_id is null
       or (n.cohort_size, n.retained, n.rate) is distinct from (t.cohort_size, t.retained, t.rate)
), updated as (
    update fct_retention t
    set cohort_size = c.cohort_size, retained = c.retained, rate = c.rate
    from changes c
    where t.ctid = c.stored_row and c.app_id is not null
), deleted as (
    delete from fct_retention t
    using changes c
    where t.ctid = c.stored_row and c.app_id is null
)
insert into fct_retention (app_id, mode, cohort_date, network, cohort_size, day, retained, rate)
select c.app_id, c.mode, c.cohort_date, c.network, c.cohort_size, c.day, c.retained, c.rate
from changes c
where c.stored_row is null;
