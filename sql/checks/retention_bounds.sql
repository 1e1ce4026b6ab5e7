-- retention_bounds: retention cells with more retained users than the cohort or fewer than none
-- (so a rate outside 0..1), a day-0 classic count other than the cohort, or a rolling value (as
-- the view fct_retention reads it from the cells) outside 0..cohort or below the classic one.
-- Grain: one row per offending cell, named by the first mode it breaks. Reads:
-- fct_retention_cells (in its primary key's order, which the running sum follows).
with cells as (
    select app_id, cohort_date, network, cohort_size, day, retained,
           cohort_size - coalesce(sum(last_active) over (
               partition by app_id, cohort_date, network order by day
               rows between unbounded preceding and 1 preceding), 0) as rolling
    from fct_retention_cells
)
select app_id,
       case when retained > cohort_size or retained < 0 or (day = 0 and retained <> cohort_size)
            then 'classic' else 'rolling' end as mode,
       cohort_date, network, day
from cells
where retained > cohort_size or retained < 0 or (day = 0 and retained <> cohort_size)
   or rolling > cohort_size or rolling < 0 or rolling < retained;
