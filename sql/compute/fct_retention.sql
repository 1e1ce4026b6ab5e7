-- fct_retention: the cohort x day retention triangle, classic (active on day N) and rolling
-- (active on day N or later), per network and for 'all'. Only mature cells appear: day N of a
-- cohort is mature when cohort_date + N (+1 under the 24-hour rule, whose day N can end on the
-- next date) is on or before the last date with data. A mature cell with nobody active is 0.
-- Grain: one row per (app_id, mode, cohort_date, network, day). Reads: int_cohort_rollup,
-- int_network_day_rollup, compute_state, compute_settings, and this run's compute_scope,
-- delta_day_cells and retention_previous_state. $1: whether the run is incremental (false: a
-- whole rebuild, which computes every cell again).
--
-- An incremental run computes again, for each row of the triangle (app, network, cohort), the
-- cells from the first one this run can have changed: the cells mature since the run before
-- (each day adds one per row), the days whose activity the fold moved (a returning user's new
-- day, and the day they were last active on before: every rolling cell after it moves), whole
-- rows for the cohorts the run rebuilt and for rows whose size is not the stored one (which also
-- fills a row the table lacks). The rolling count of a row's first computed cell starts from the
-- users whose last active day comes before it. At a year of daily cohorts that is 342k of the
-- 935k cells, half of which change: 2.49-2.52 s against 3.56-3.87 s for the whole triangle.
-- At 90 days the two are even (0.24-0.26 s against 0.18-0.23 s).
-- The new cells are compared with the stored ones in the same statement, and only the rows that
-- differ are written: changed cells are updated in place (HOT, with the room that migration 0048
-- leaves on each page), new ones inserted, gone ones deleted. Deleting and inserting every row
-- (whose keys come back at once, each probing its dead predecessor in the primary key) cost
-- twice the computation; writing the new cells into a working table before the comparison cost a
-- fifth of it (at a year 3.4-4.3 s against 2.8-3.1 s for the whole triangle).

with settings as (
    select *, case when day_rule = 'hours24' then 1 else 0 end as last_day_offset
    from compute_settings where app_id = ''
), sizes as materialized (
    select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
    from int_cohort_rollup
    group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
), slices as materialized (
    -- each (app, network) numbered: the triangle is sorted and joined on integers, where text
    -- keys (one app name in every row) made every comparison a string comparison
    select app_id, network, (row_number() over (order by app_id, network))::integer as slice
    from (select distinct app_id, network from sizes) s
), bounds as materialized (
    -- each row of the triangle (app, network, cohort): the first day this run computes again,
    -- and its last mature day
    select sl.slice, z.app_id, z.cohort_date, z.network, z.cohort_size, c.from_day,
           least(s.max_day, cs.data_through_date - z.cohort_date - s.last_day_offset) as to_day
    from (
        select app_id, cohort_date, network, min(from_day) as from_day
        from (
            -- a whole rebuild: every row from day 0
            select app_id, cohort_date, network, 0 as from_day from sizes where not $1
            union all
            -- the cells that became mature since the run before (the state this run began with)
            select z.app_id, z.cohort_date, z.network,
                   coalesce(greatest(0, p.data_through_date - z.cohort_date - s.last_day_offset + 1),
                            0)
            from sizes z
            cross join settings s
            left join retention_previous_state p on p.app_id = z.app_id
            where $1
            union all
            -- the days whose activity the fold moved: a returning user's new active day, and the
            -- day they were last active on before (every rolling cell after it moves)
            select app_id, cohort_date, network, min(day_n) from delta_day_cells
            where $1 and (active_users <> 0 or last_active_users <> 0)
            group by app_id, cohort_date, network
            union all
            select app_id, cohort_date, 'all', min(day_n) from delta_day_cells
            where $1 and (active_users <> 0 or last_active_users <> 0)
            group by app_id, cohort_date
            union all
            -- the cohorts this run rebuilt, and rows whose size is not the stored one: whole rows
            select z.app_id, z.cohort_date, z.network, 0
            from sizes z
            join compute_scope sc on sc.app_id = z.app_id and sc.cohort_date = z.cohort_date
            where $1
            union all
            select z.app_id, z.cohort_date, z.network, 0
            from sizes z
            where $1 and not exists (
                select 1 from fct_retention t
                where t.app_id = z.app_id and t.mode = 'classic' and t.cohort_date = z.cohort_date
                  and t.network = z.network and t.day = 0 and t.cohort_size = z.cohort_size)
        ) c
        group by app_id, cohort_date, network
    ) c
    join sizes z on z.app_id = c.app_id and z.cohort_date = c.cohort_date and z.network = c.network
    join slices sl on sl.app_id = z.app_id and sl.network = z.network
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
), days as materialized (
    -- the rollup's days of the rows computed again, up to their last mature day
    select b.slice, b.cohort_date, b.from_day, d.day_n, d.active_users, d.last_active_users
    from (
        -- the rollup's rows are per network already (its primary key); only 'all' is summed
        select app_id, cohort_date, network, day_n, active_users, last_active_users
        from int_network_day_rollup
        union all
        select app_id, cohort_date, 'all', day_n, sum(active_users), sum(last_active_users)
        from int_network_day_rollup
        group by app_id, cohort_date, day_n
    ) d
    join bounds b on b.app_id = d.app_id and b.cohort_date = d.cohort_date and b.network = d.network
    where b.from_day <= b.to_day and d.day_n <= b.to_day
), earlier as (
    -- the users of each row whose last active day comes before its first day computed again
    select slice, cohort_date, sum(last_active_users) as last_active_before
    from days
    where day_n < from_day
    group by slice, cohort_date
), spine as (
    select b.slice, b.app_id, b.cohort_date, b.network, b.cohort_size, g.day
    from bounds b
    cross join lateral generate_series(b.from_day, b.to_day) as g (day)
), cells as (
    select sp.*, coalesce(d.active_users, 0) as classic,
           sp.cohort_size - coalesce(e.last_active_before, 0)
               - coalesce(sum(coalesce(d.last_active_users, 0)) over (
                     partition by sp.slice, sp.cohort_date order by sp.day
                     rows between unbounded preceding and 1 preceding), 0) as rolling
    from spine sp
    left join earlier e on e.slice = sp.slice and e.cohort_date = sp.cohort_date
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
), stored as (
    -- the stored cells the new ones replace: all of them on a whole rebuild; else each row's
    -- from its first day computed again, and every row of a rebuilt cohort that has no size any
    -- more (its last users moved to another cohort)
    select t.ctid as stored_row, t.* from fct_retention t where not $1
    union all
    select t.ctid, t.*
    from bounds b
    cross join (values ('classic'), ('rolling')) as m (mode)
    join fct_retention t
      on t.app_id = b.app_id and t.mode = m.mode and t.cohort_date = b.cohort_date
     and t.network = b.network and t.day >= b.from_day
    where $1
    union all
    select t.ctid, t.*
    from fct_retention t
    join compute_scope sc on sc.app_id = t.app_id and sc.cohort_date = t.cohort_date
    where $1 and not exists (
        select 1 from sizes z
        where z.app_id = t.app_id and z.cohort_date = t.cohort_date and z.network = t.network)
), changes as materialized (
    -- Cells keyed alike and equal in value are left alone (nulls compare equal: a rate is null for
    -- an empty cohort). The three writes touch different rows, so one statement holds them.
    select t.stored_row, n.*
    from next n
    full join stored t
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
