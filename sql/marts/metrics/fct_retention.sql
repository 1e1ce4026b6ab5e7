-- fct_retention: the cells of the cohort x day retention triangle (fct_retention_cells), per
-- network and for 'all': the users active on day N (classic retention) and the users whose last
-- active day is N, from which the view fct_retention reads rolling retention (active on day N or
-- later: the cohort less the earlier days' last active users; migration 0051). Only mature cells
-- appear: day N of a cohort is mature when cohort_date + N (+1 under the 24-hour rule, whose day N
-- can end on the next date) is on or before the last date with data. A mature cell with nobody
-- active is 0.
-- Grain: one row per (app_id, cohort_date, network, day). Reads: int_cohort_rollup,
-- int_network_day_rollup, compute_state, compute_settings, and this run's compute_scope,
-- delta_network_cells and retention_previous_state. $1: whether the run is incremental (false: a
-- whole rebuild, which computes every cell again).
--
-- An incremental run touches only the cells it can have changed. It computes again from the rollup
-- the cells mature since the run before (each row of the triangle, app x network x cohort, gains
-- one a day) and whole rows for the cohorts the run rebuilt and for rows whose size is not the
-- stored one (which also fills a row the table lacks). To the days whose activity the fold moved (a
-- returning user's new active day, and the day they were last active on before) it adds the fold's
-- differences (delta_network_cells), as int_cohort_rollups.fold.sql does to the rollups. When rolling cells
-- were stored, a returning user moved every cell between their old and new last active day: at a
-- year of daily cohorts 342k of the 935k cells were computed again and about 170k written (2.4 s of
-- the daily run).
-- The cells computed again are compared with the stored ones in the same statement, and only the
-- rows that differ are written: changed cells are updated in place (HOT, with the room the table
-- leaves on each page), new ones inserted, gone ones deleted. Deleting and inserting every row
-- (whose keys come back at once, each probing its dead predecessor in the primary key) cost twice
-- the computation.

with settings as (
    select *, case when day_rule = 'hours24' then 1 else 0 end as last_day_offset
    from compute_settings where app_id = ''
), sizes as materialized (
    select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
    from int_cohort_rollup
    group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
), triangle_rows as materialized (
    -- each row of the triangle (app, network, cohort): the first day computed again from the
    -- rollup (every row has one: the day after its last mature day at the run before), and its
    -- last mature day
    select z.app_id, z.cohort_date, z.network, z.cohort_size, c.from_day,
           least(s.max_day, cs.data_through_date - z.cohort_date - s.last_day_offset) as to_day
    from (
        select c.app_id, c.cohort_date, c.network, min(c.from_day) as from_day
        from (
            -- a whole rebuild: every row from day 0
            select app_id, cohort_date, network, 0 as from_day from sizes where not $1
            union all
            -- the cells that became mature since the run before (the state this run began with)
            select z.app_id, z.cohort_date, z.network,
                   coalesce(greatest(0, p.data_through_date - z.cohort_date - s.last_day_offset + 1), 0)
            from sizes z
            cross join settings s
            left join retention_previous_state p on p.app_id = z.app_id
            where $1
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
                select 1 from fct_retention_cells t
                where t.app_id = z.app_id and t.cohort_date = z.cohort_date and t.network = z.network
                  and t.day = 0 and t.cohort_size = z.cohort_size)
        ) c
        group by c.app_id, c.cohort_date, c.network
    ) c
    join sizes z on z.app_id = c.app_id and z.cohort_date = c.cohort_date and z.network = c.network
    join compute_state cs on cs.app_id = z.app_id
    cross join settings s
), targets as materialized (
    -- the cells computed again from the rollup
    select r.app_id, r.cohort_date, r.network, r.cohort_size, g.day
    from triangle_rows r
    cross join lateral generate_series(r.from_day, r.to_day) as g (day)
), moved as (
    -- the days whose activity the fold moved (a returning user's new active day, and the day they
    -- were last active on before) before the days computed again: the fold's differences
    -- (delta_network_cells) are added to the stored cells, which hold the rollup as it was (a day
    -- before the first day computed again has been mature since the run before)
    select d.app_id, d.cohort_date, d.network, d.day_n, d.active_users, d.last_active_users
    from (
        select app_id, cohort_date, network, day_n, active_users, last_active_users
        from delta_network_cells
        where $1 and (active_users <> 0 or last_active_users <> 0)
        union all
        select app_id, cohort_date, 'all', day_n, sum(active_users), sum(last_active_users)
        from delta_network_cells
        where $1
        group by app_id, cohort_date, day_n
        having sum(active_users) <> 0 or sum(last_active_users) <> 0
    ) d
    join triangle_rows r on r.app_id = d.app_id and r.cohort_date = d.cohort_date and r.network = d.network
    where d.day_n < r.from_day
), days as (
    -- the rollup's days of the rows computed again, from their first day computed again: each
    -- row's range of the rollup's primary key (a rebuild reads it whole, a day one cell a row);
    -- the rollup is per network already, and 'all' sums the cohort's networks (its days are
    -- found in the cohort's part of the primary key)
    select r.app_id, r.cohort_date, r.network, d.day_n, d.active_users, d.last_active_users
    from triangle_rows r
    join int_network_day_rollup d
      on d.app_id = r.app_id and d.cohort_date = r.cohort_date and d.network = r.network
     and d.day_n between r.from_day and r.to_day
    where r.network <> 'all'
    union all
    select a.app_id, a.cohort_date, a.network, d.day_n, sum(d.active_users), sum(d.last_active_users)
    from triangle_rows a
    join int_network_day_rollup d
      on d.app_id = a.app_id and d.cohort_date = a.cohort_date and d.day_n between a.from_day and a.to_day
    where a.network = 'all'
    group by a.app_id, a.cohort_date, a.network, d.day_n
), next as (
    -- every cell computed again; a day without a rollup row is 0
    select t.app_id, t.cohort_date, t.network, t.day, t.cohort_size,
           coalesce(d.active_users, 0)::bigint as retained, coalesce(d.last_active_users, 0)::integer as last_active
    from targets t
    left join days d
      on d.app_id = t.app_id and d.cohort_date = t.cohort_date and d.network = t.network and d.day_n = t.day
), stored as (
    -- the stored cells the new ones replace: all of them on a whole rebuild; else the cells
    -- computed again, and every cell of a rebuilt cohort's row that has no size any more (its
    -- last users moved to another cohort)
    select t.ctid as stored_row, t.* from fct_retention_cells t where not $1
    union all
    select t.ctid, t.*
    from targets c
    join fct_retention_cells t
      on t.app_id = c.app_id and t.cohort_date = c.cohort_date and t.network = c.network and t.day = c.day
    where $1
    union all
    select t.ctid, t.*
    from fct_retention_cells t
    join compute_scope sc on sc.app_id = t.app_id and sc.cohort_date = t.cohort_date
    where $1 and not exists (
        select 1 from sizes z
        where z.app_id = t.app_id and z.cohort_date = t.cohort_date and z.network = t.network)
), changes as materialized (
    -- Cells keyed alike and equal in value are left alone. The four writes touch different rows
    -- (the moved days lie before their row's first day computed again, and the cells deleted
    -- belong to rows without a size, which have no moved days), so one statement holds them.
    select t.stored_row, n.*
    from next n
    full join stored t
      on t.app_id = n.app_id and t.cohort_date = n.cohort_date and t.network = n.network and t.day = n.day
    where n.app_id is null or t.app_id is null
       or (n.cohort_size, n.retained, n.last_active) is distinct from (t.cohort_size, t.retained, t.last_active)
), shifted as (
    update fct_retention_cells t
    set retained = t.retained + m.active_users, last_active = t.last_active + m.last_active_users
    from moved m
    where t.app_id = m.app_id and t.cohort_date = m.cohort_date and t.network = m.network and t.day = m.day_n
), updated as (
    update fct_retention_cells t
    set cohort_size = c.cohort_size, retained = c.retained, last_active = c.last_active
    from changes c
    where t.ctid = c.stored_row and c.app_id is not null
), deleted as (
    delete from fct_retention_cells t
    using changes c
    where t.ctid = c.stored_row and c.app_id is null
)
insert into fct_retention_cells (app_id, cohort_date, network, day, cohort_size, retained, last_active)
select c.app_id, c.cohort_date, c.network, c.day, c.cohort_size, c.retained, c.last_active
from changes c
where c.stored_row is null;
