-- 0051_retention_cells: the retention triangle keeps, per cell, the users active on day N (classic
-- retention) and the users whose last active day is N; rolling retention (active on day N or
-- later) is read from them as the cohort size less the running sum of the earlier days' last
-- active users (the view fct_retention, same columns and rows as the table it replaces).
-- A stored rolling cell moved with every day between a returning user's old and new last active
-- day: at a year of daily cohorts a day rewrote about 170k cells of 935k, 2.4 s of the daily run.
-- Now a returning user changes at most two cells of their row (the old and the new last day).
-- The cells are the stored classic cells with, for each, the users the network-grain day rollup
-- (migration 0044) has last active on that day, which is what the stored rolling cells were
-- summed from: the view gives back the rows of the table it replaces.
-- Grain: fct_retention_cells one row per (app_id, cohort_date, network, day), mature days only;
-- fct_retention one row per (app_id, mode, cohort_date, network, day). Reads: fct_retention,
-- int_network_day_rollup; replaces fct_retention and dash_retention (granted again to
-- funnel_dashboard, migration 0031).

-- Cells change in place each day (the newest diagonal, returning users' days): the room left on
-- each page keeps those updates HOT, as migration 0048 did for the table before.
create table fct_retention_cells (
    app_id      text    not null,
    cohort_date date    not null,
    network     text    not null,
    day         integer not null,
    cohort_size bigint  not null,
    retained    bigint  not null,
    last_active integer not null,
    primary key (app_id, cohort_date, network, day)
) with (fillfactor = 60);

insert into fct_retention_cells (app_id, cohort_date, network, day, cohort_size, retained, last_active)
select r.app_id, r.cohort_date, r.network, r.day, r.cohort_size, r.retained, coalesce(d.last_active_users, 0)
from fct_retention r
left join (
    select app_id, cohort_date, network, day_n, last_active_users
    from int_network_day_rollup
    union all
    select app_id, cohort_date, 'all', day_n, sum(last_active_users)::integer
    from int_network_day_rollup
    group by app_id, cohort_date, day_n
) d on d.app_id = r.app_id and d.cohort_date = r.cohort_date and d.network = r.network and d.day_n = r.day
where r.mode = 'classic'
order by r.app_id, r.cohort_date, r.network, r.day;

drop view dash_retention;
drop table fct_retention;

create view fct_retention as
select app_id, 'classic'::text as mode, cohort_date, network, cohort_size, day, retained,
       case when cohort_size > 0 then retained::double precision / cohort_size end as rate
from fct_retention_cells
union all
select app_id, 'rolling'::text, cohort_date, network, cohort_size, day, rolling,
       case when cohort_size > 0 then rolling::double precision / cohort_size end
from (
    select app_id, cohort_date, network, cohort_size, day,
           cohort_size - coalesce(sum(last_active) over (
               partition by app_id, cohort_date, network order by day
               rows between unbounded preceding and 1 preceding), 0) as rolling
    from fct_retention_cells
) c;

-- dash_retention as migration 0030 made it.
create view dash_retention as
select (r.cohort_date::timestamp at time zone 'UTC') as time,
       r.app_id, r.mode, r.cohort_date, r.network, r.cohort_size, r.day, r.retained, r.rate
from fct_retention r;

do $$
begin
    execute format('grant select on %I.dash_retention to funnel_dashboard', current_schema());
end
$$;
