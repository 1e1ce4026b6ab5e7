-- fct_funnel: every funnel's steps over all computed cohorts. The default funnel comes from the
-- counts and exact medians kept in int_funnel_medians (int_funnel_points.fold.sql): a row per step for
-- 'all' and for each network, campaign, country and platform (the others 'all'), as
-- funnel_steps() computes them. User-defined funnels come from funnel_steps() (migration 0016),
-- which reads every user's facts; it is not called when none is configured. A default step whose
-- input the app never loaded (default_funnel_left_out, migration 0065) is left out: its users
-- passed through it, so the next step's conversion is from the step before it.
-- Grain: one row per (app_id, funnel, network, campaign, country, platform, step_index).
-- Reads: int_funnel_medians, compute_funnels, default_funnel_left_out; int_user_facts and int_user_funnel_steps through
-- funnel_steps().
delete from fct_funnel;

with groups as (
    select app_id, dim, dim_value, users as first_users
    from int_funnel_medians
    where funnel = 'default' and step_index = 0
), steps as (
    select g.app_id, g.dim, g.dim_value, g.first_users, cf.step_index, cf.step,
           coalesce(m.users, 0) as users, m.median_seconds,
           lag(coalesce(m.users, 0)) over (partition by g.app_id, g.dim, g.dim_value order by cf.step_index)
               as previous_users
    from groups g
    join compute_funnels cf on cf.app_id = '' and cf.funnel = 'default'
    left join int_funnel_medians m
      on m.app_id = g.app_id and m.funnel = 'default' and m.step_index = cf.step_index and m.dim = g.dim
     and m.dim_value = g.dim_value
    where not exists (select 1 from default_funnel_left_out l
                      where l.app_id = g.app_id and l.step_index = cf.step_index)
)
insert into fct_funnel (app_id, funnel, network, campaign, country, platform, step_index, step, users,
                        conversion_from_previous, conversion_from_first, median_seconds_to_convert)
select s.app_id, 'default',
       case when s.dim = 'network' then s.dim_value else 'all' end,
       case when s.dim = 'campaign' then s.dim_value else 'all' end,
       case when s.dim = 'country' then s.dim_value else 'all' end,
       case when s.dim = 'platform' then s.dim_value else 'all' end,
       s.step_index, s.step, s.users,
       case when s.previous_users > 0 then s.users::double precision / s.previous_users end,
       case when s.first_users > 0 then s.users::double precision / s.first_users end,
       case when s.step_index > 0 then s.median_seconds end
from steps s;

insert into fct_funnel (app_id, funnel, network, campaign, country, platform, step_index, step, users,
                        conversion_from_previous, conversion_from_first, median_seconds_to_convert)
select *
from funnel_steps(null, null, null) f
where f.funnel <> 'default'
  and exists (select 1 from compute_funnels cf where cf.app_id = '' and cf.funnel <> 'default');
