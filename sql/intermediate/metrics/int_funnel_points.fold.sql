-- int_funnel_points.fold: applies this run's changes of the default funnel (funnel_fact_changes, written
-- where facts are deleted or written) to int_funnel_points, and moves each changed group's
-- count, anchor and median in int_funnel_medians (migration 0043): the counts below and at the
-- anchor value move by the changes there, and funnel_middle_values steps from it to the middle.
-- So the exact medians cost what changed, not every user's step times.
-- Grain: int_funnel_points one row per (app_id, funnel, step_index, user_id); int_funnel_medians
-- one row per (app_id, funnel, step_index, dim, dim_value) with users.
-- Reads: funnel_fact_changes, int_funnel_points, int_funnel_medians.
truncate funnel_point_changes;

insert into funnel_point_changes
select c.app_id, 'default', st.step_index, st.seconds, c.user_id, c.network, c.campaign, c.country,
       c.platform, sum(c.sign)
from funnel_fact_changes c
cross join lateral (values (0, 0::double precision), (1, c.s1), (2, c.s2), (3, c.s3), (4, c.s4))
    as st (step_index, seconds)
where st.seconds is not null
group by c.app_id, st.step_index, st.seconds, c.user_id, c.network, c.campaign, c.country, c.platform
having sum(c.sign) <> 0;

analyze funnel_point_changes;

-- A moved point (same user and seconds, another breakdown) is deleted, then written again.
delete from int_funnel_points p
using funnel_point_changes c
where c.sign < 0 and c.step_index > 0
  and p.app_id = c.app_id and p.funnel = c.funnel and p.step_index = c.step_index
  and p.seconds = c.seconds and p.user_id = c.user_id;

insert into int_funnel_points (app_id, funnel, step_index, seconds, user_id, network, campaign, country, platform)
select app_id, funnel, step_index, seconds, user_id, network, campaign, country, platform
from funnel_point_changes
where sign > 0 and step_index > 0;

with changes as (
    select c.app_id, c.funnel, c.step_index, d.dim, d.dim_value, c.seconds, c.sign
    from funnel_point_changes c
    cross join lateral (values ('all', 'all'), ('network', c.network), ('campaign', c.campaign),
                               ('country', c.country), ('platform', c.platform)) as d (dim, dim_value)
), groups as (
    -- the counts below and at the anchor value move by the changes there
    select c.app_id, c.funnel, c.step_index, c.dim, c.dim_value,
           (coalesce(m.users, 0) + sum(c.sign))::bigint as users,
           m.anchor_seconds,
           (m.anchor_below + coalesce(sum(c.sign) filter (where c.seconds < m.anchor_seconds), 0))::bigint as below,
           (m.anchor_ties + coalesce(sum(c.sign) filter (where c.seconds = m.anchor_seconds), 0))::bigint as ties
    from changes c
    left join int_funnel_medians m
      on m.app_id = c.app_id and m.funnel = c.funnel and m.step_index = c.step_index and m.dim = c.dim
     and m.dim_value = c.dim_value
    group by c.app_id, c.funnel, c.step_index, c.dim, c.dim_value, m.users, m.anchor_seconds, m.anchor_below,
             m.anchor_ties
), moved as (
    select g.app_id, g.funnel, g.step_index, g.dim, g.dim_value, g.users, mid.anchor_seconds, mid.anchor_below,
           mid.anchor_ties,
           case when g.users % 2 = 1 then mid.anchor_seconds
                else mid.anchor_seconds + (0.5 * (mid.next_seconds - mid.anchor_seconds)) end as median_seconds
    from groups g
    left join lateral (
        -- offset 0 keeps the filter a gate: no walk for step 0 or an emptied group
        select * from funnel_middle_values(g.app_id, g.funnel, g.step_index, g.dim, g.dim_value,
                                           g.anchor_seconds, g.below, g.ties, (g.users - 1) / 2)
        where g.step_index > 0 and g.users > 0
        offset 0
    ) mid on true
)
insert into int_funnel_medians as m (app_id, funnel, step_index, dim, dim_value, users, anchor_seconds,
                                     anchor_below, anchor_ties, median_seconds)
select app_id, funnel, step_index, dim, dim_value, users, anchor_seconds, anchor_below, anchor_ties,
       median_seconds
from moved
on conflict (app_id, funnel, step_index, dim, dim_value) do update
set users = excluded.users,
    anchor_seconds = excluded.anchor_seconds,
    anchor_below = excluded.anchor_below,
    anchor_ties = excluded.anchor_ties,
    median_seconds = excluded.median_seconds;

delete from int_funnel_medians where users = 0;
