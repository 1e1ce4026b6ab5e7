-- int_funnel_medians.insert: writes the default funnel's medians of steps 1-4, computed by the
-- client from every point (FunnelMedianTable: count, anchor at rank floor((users - 1) / 2) with
-- the points below and at it, percentile_cont(0.5)), and each app's step 0 (installs) per
-- breakdown from the cohort rollup, which counts each cohort member once. After
-- int_funnel_points.sql emptied the table: a full rebuild, or points never built before.
-- Grain: one row per (app_id, funnel, step_index, dim, dim_value) with users.
-- Reads: int_cohort_rollup. Parameters: $1..$9 one array per column of the steps' rows (app_id,
-- step_index, dim, dim_value, users, anchor_seconds, anchor_below, anchor_ties, median_seconds).
with starts as (
    select app_id,
           case when grouping(network) = 0 then 'network' when grouping(campaign) = 0 then 'campaign'
                when grouping(country) = 0 then 'country' when grouping(platform) = 0 then 'platform'
                else 'all' end as dim,
           coalesce(network, campaign, country, platform, 'all') as dim_value,
           sum(installs) as users
    from int_cohort_rollup
    group by grouping sets ((app_id), (app_id, network), (app_id, campaign), (app_id, country), (app_id, platform))
)
insert into int_funnel_medians (app_id, funnel, step_index, dim, dim_value, users, anchor_seconds,
                                anchor_below, anchor_ties, median_seconds)
select m.app_id, 'default', m.step_index, m.dim, m.dim_value, m.users, m.anchor_seconds, m.anchor_below,
       m.anchor_ties, m.median_seconds
from unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::bigint[], $6::double precision[],
            $7::bigint[], $8::bigint[], $9::double precision[])
    as m (app_id, step_index, dim, dim_value, users, anchor_seconds, anchor_below, anchor_ties, median_seconds)
union all
select app_id, 'default', 0, dim, dim_value, users, null, null, null, null
from starts;
