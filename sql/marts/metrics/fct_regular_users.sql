-- fct_regular_users: share of cohort users with at least R opens on days 1..D, over the cohorts
-- mature for day D, per network and for 'all'.
-- Grain: one row per (app_id, network). Reads: int_cohort_rollup, compute_state, compute_settings.
delete from fct_regular_users;

with settings as (
    select * from compute_settings where app_id = ''
)
insert into fct_regular_users (app_id, network, cohorts, cohort_size, regular_users, rate)
select r.app_id, coalesce(r.network, 'all'), count(distinct r.cohort_date), sum(r.installs),
       sum(r.regular_users),
       case when sum(r.installs) > 0 then sum(r.regular_users)::double precision / sum(r.installs) end
from int_cohort_rollup r
join compute_state cs on cs.app_id = r.app_id
cross join settings s
where r.cohort_date + s.regular_days + case when s.day_rule = 'hours24' then 1 else 0 end <= cs.data_through_date
group by grouping sets ((r.app_id, r.network), (r.app_id));
