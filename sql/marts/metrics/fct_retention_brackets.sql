-- fct_retention_brackets: share of cohort users active at least once on days first..last of each
-- configured bracket, over the cohorts for which the whole bracket is mature.
-- Grain: one row per (app_id, network, bracket). Reads: int_cohort_rollup,
-- int_cohort_bracket_rollup, compute_state, compute_settings.
delete from fct_retention_brackets;

with settings as (
    select * from compute_settings where app_id = ''
), brackets as (
    select b.bracket_index::integer - 1 as bracket_index, lower(b.bracket) as first_day,
           upper(b.bracket) - 1 as last_day
    from settings s
    cross join lateral unnest(s.brackets) with ordinality as b (bracket, bracket_index)
), sizes as (
    select app_id, cohort_date, coalesce(network, 'all') as network, sum(installs) as cohort_size
    from int_cohort_rollup
    group by grouping sets ((app_id, cohort_date, network), (app_id, cohort_date))
), active as (
    select app_id, cohort_date, coalesce(network, 'all') as network, bracket_index,
           sum(active_users) as active_users
    from int_cohort_bracket_rollup
    group by grouping sets ((app_id, cohort_date, network, bracket_index), (app_id, cohort_date, bracket_index))
)
insert into fct_retention_brackets (app_id, network, bracket, first_day, last_day, cohorts, cohort_size,
                                    retained, rate)
select z.app_id, z.network, b.first_day || '-' || b.last_day, b.first_day, b.last_day,
       count(*), sum(z.cohort_size), sum(coalesce(a.active_users, 0)),
       case when sum(z.cohort_size) > 0
            then sum(coalesce(a.active_users, 0))::double precision / sum(z.cohort_size) end
from sizes z
join compute_state cs on cs.app_id = z.app_id
cross join settings s
cross join brackets b
left join active a
  on a.app_id = z.app_id and a.cohort_date = z.cohort_date and a.network = z.network
 and a.bracket_index = b.bracket_index
where z.cohort_date + b.last_day + case when s.day_rule = 'hours24' then 1 else 0 end <= cs.data_through_date
group by z.app_id, z.network, b.first_day, b.last_day;
