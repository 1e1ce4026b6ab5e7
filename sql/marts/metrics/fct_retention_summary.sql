-- fct_retention_summary: D1, D3, D7, D14 and D30 retention (classic and rolling) over the
-- cohorts mature for that day, per network and for 'all'. A day no cohort has reached has no row.
-- Rolling retention is summed from the triangle's cells as the view fct_retention does (the
-- cohort less the users last active before day N), over days 0..30 only: the view would sum
-- every day of every row first.
-- Grain: one row per (app_id, mode, network, day). Reads: fct_retention_cells.
delete from fct_retention_summary;

with cells as (
    select app_id, cohort_date, network, cohort_size, day, retained,
           cohort_size - coalesce(sum(last_active) over (
               partition by app_id, cohort_date, network order by day
               rows between unbounded preceding and 1 preceding), 0) as rolling
    from fct_retention_cells
    where day <= 30
)
insert into fct_retention_summary (app_id, mode, network, day, cohorts, cohort_size, retained, rate)
select c.app_id, m.mode, c.network, c.day, count(*), sum(c.cohort_size),
       sum(case m.mode when 'classic' then c.retained else c.rolling end),
       case when sum(c.cohort_size) > 0
            then sum(case m.mode when 'classic' then c.retained else c.rolling end)::double precision
                 / sum(c.cohort_size) end
from cells c
cross join (values ('classic'), ('rolling')) as m (mode)
where c.day in (1, 3, 7, 14, 30)
group by c.app_id, m.mode, c.network, c.day;
