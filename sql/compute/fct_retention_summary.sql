-- fct_retention_summary: D1, D3, D7, D14 and D30 retention (classic and rolling) over the
-- cohorts mature for that day, per network and for 'all'. A day no cohort has reached has no row.
-- Grain: one row per (app_id, mode, network, day). Reads: fct_retention.
delete from fct_retention_summary;

insert into fct_retention_summary (app_id, mode, network, day, cohorts, cohort_size, retained, rate)
select app_id, mode, network, day, count(*), sum(cohort_size), sum(retained),
       case when sum(cohort_size) > 0 then sum(retained)::double precision / sum(cohort_size) end
from fct_retention
where day in (1, 3, 7, 14, 30)
group by app_id, mode, network, day;
