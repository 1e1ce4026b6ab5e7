-- 0121_funnel_steps_plpgsql: funnel_steps and funnel_breakdown_steps (migrations 0016, 0066) as
-- PL/pgSQL functions, the same queries otherwise: Citus refuses to plan a SQL function over
-- distributed tables called with parameters (the reports' date ranges, compute's nulls), and
-- runs no grouping sets over a distributed table. The per-user rows are gathered first
-- (materialized CTEs: on Citus from every shard, each shard ordering its own users' steps) and
-- counted after, on the coordinator. A call whose one-time filter is false (compute without
-- user-defined funnels, a report without a date range) runs nothing, as before.
-- Grain and columns: unchanged. Reads: int_user_facts, int_user_funnel_steps,
-- int_user_funnel_breakdown_steps, compute_funnels, compute_funnel_breakdowns.
create or replace function funnel_steps(app text, from_date date, to_date date)
 RETURNS TABLE(app_id text, funnel text, network text, campaign text, country text, platform text, step_index integer, step text, users bigint, conversion_from_previous double precision, conversion_from_first double precision, median_seconds_to_convert double precision)
 language plpgsql
 stable
as $function$
#variable_conflict use_column
begin
return query
with users as materialized (
    -- one narrow row per user, each step's seconds from the previous step, null when not reached
    -- (a step is only reached after the previous one, so a count of seconds counts the step).
    -- Materialized: on Citus the rows are gathered from the shards, then grouped
    select app_id, user_id, network, campaign, country, platform,
           date_part('epoch', funnel_open_at - installed_at) as s1,
           date_part('epoch', funnel_onboarded_at - funnel_open_at) as s2,
           date_part('epoch', funnel_regular_at - funnel_onboarded_at) as s3,
           date_part('epoch', funnel_purchase_at - funnel_regular_at) as s4
    from int_user_facts
    where ($1::text is null or app_id = $1::text)
      and ($2::date is null or cohort_date >= $2::date)
      and ($3::date is null or cohort_date <= $3::date)
), default_steps as (
    select app_id, coalesce(network, 'all') as network, coalesce(campaign, 'all') as campaign,
           coalesce(country, 'all') as country, coalesce(platform, 'all') as platform,
           count(*) as s0, count(s1) as s1, count(s2) as s2, count(s3) as s3, count(s4) as s4,
           percentile_cont(0.5) within group (order by s1) as m1,
           percentile_cont(0.5) within group (order by s2) as m2,
           percentile_cont(0.5) within group (order by s3) as m3,
           percentile_cont(0.5) within group (order by s4) as m4
    from users
    group by grouping sets ((app_id), (app_id, network), (app_id, campaign), (app_id, country), (app_id, platform))
), default_rows as (
    select d.app_id, 'default'::text as funnel, d.network, d.campaign, d.country, d.platform,
           v.step_index, v.users, v.previous_users, d.s0 as first_users, v.median_seconds
    from default_steps d
    cross join lateral (values
        (0, d.s0, null::bigint, null::double precision),
        (1, d.s1, d.s0, d.m1),
        (2, d.s2, d.s1, d.m2),
        (3, d.s3, d.s2, d.m3),
        (4, d.s4, d.s3, d.m4)) as v (step_index, users, previous_users, median_seconds)
), custom_seconds as materialized (
    select s.app_id, s.user_id, s.funnel, s.step_index,
           date_part('epoch', s.reached_at - lag(s.reached_at) over (
               partition by s.app_id, s.user_id, s.funnel order by s.step_index)) as seconds
    from int_user_funnel_steps s
    where ($1::text is null or s.app_id = $1::text)
), custom_steps as (
    select c.app_id, c.funnel, c.step_index, coalesce(f.network, 'all') as network,
           coalesce(f.campaign, 'all') as campaign, coalesce(f.country, 'all') as country,
           coalesce(f.platform, 'all') as platform, count(*) as users,
           percentile_cont(0.5) within group (order by c.seconds) as median_seconds
    from custom_seconds c
    join users f on f.app_id = c.app_id and f.user_id = c.user_id
    group by grouping sets ((c.app_id, c.funnel, c.step_index),
                            (c.app_id, c.funnel, c.step_index, f.network),
                            (c.app_id, c.funnel, c.step_index, f.campaign),
                            (c.app_id, c.funnel, c.step_index, f.country),
                            (c.app_id, c.funnel, c.step_index, f.platform))
), custom_groups as (
    select app_id, funnel, network, campaign, country, platform, users as first_users
    from custom_steps where step_index = 0
), custom_rows as (
    select g.app_id, g.funnel, g.network, g.campaign, g.country, g.platform, cf.step_index,
           coalesce(cs.users, 0) as users,
           lag(coalesce(cs.users, 0)) over (
               partition by g.app_id, g.funnel, g.network, g.campaign, g.country, g.platform
               order by cf.step_index) as previous_users,
           g.first_users,
           case when cf.step_index > 0 then cs.median_seconds end as median_seconds
    from custom_groups g
    join compute_funnels cf on cf.app_id = '' and cf.funnel = g.funnel
    left join custom_steps cs
      on cs.app_id = g.app_id and cs.funnel = g.funnel and cs.step_index = cf.step_index
     and cs.network = g.network and cs.campaign = g.campaign and cs.country = g.country
     and cs.platform = g.platform
), all_rows as (
    select * from default_rows
    union all
    select * from custom_rows
)
select r.app_id, r.funnel, r.network, r.campaign, r.country, r.platform, r.step_index, cf.step, r.users,
       case when r.previous_users > 0 then r.users::double precision / r.previous_users end,
       case when r.first_users > 0 then r.users::double precision / r.first_users end,
       r.median_seconds
from all_rows r
join compute_funnels cf on cf.app_id = '' and cf.funnel = r.funnel and cf.step_index = r.step_index;
end
$function$;

create or replace function funnel_breakdown_steps(app text, from_date date, to_date date)
 RETURNS TABLE(app_id text, funnel text, property text, breakdown text, step_index integer, step text, users bigint, conversion_from_previous double precision, conversion_from_first double precision, median_seconds_to_convert double precision)
 language plpgsql
 stable
as $function$
#variable_conflict use_column
begin
return query
with reached as materialized (
    select s.app_id, s.funnel, s.breakdown, s.step_index,
           date_part('epoch', s.reached_at - lag(s.reached_at) over (
               partition by s.app_id, s.user_id, s.funnel, s.breakdown order by s.step_index)) as seconds
    from int_user_funnel_breakdown_steps s
    where ($1::text is null or s.app_id = $1::text)
      and ($2::date is null and $3::date is null or exists (
          select 1 from int_user_facts f
          where f.app_id = s.app_id and f.user_id = s.user_id
            and ($2::date is null or f.cohort_date >= $2::date)
            and ($3::date is null or f.cohort_date <= $3::date)))
), counted as (
    select r.app_id, r.funnel, r.breakdown, r.step_index, count(*) as users,
           percentile_cont(0.5) within group (order by r.seconds) as median_seconds
    from reached r
    group by r.app_id, r.funnel, r.breakdown, r.step_index
), firsts as (
    select c.app_id, c.funnel, c.breakdown, c.users as first_users
    from counted c where c.step_index = 0
), stepped as (
    select g.app_id, g.funnel, g.breakdown, cf.step_index, cf.step, coalesce(c.users, 0) as users,
           lag(coalesce(c.users, 0)) over (
               partition by g.app_id, g.funnel, g.breakdown order by cf.step_index) as previous_users,
           g.first_users,
           case when cf.step_index > 0 then c.median_seconds end as median_seconds
    from firsts g
    join compute_funnels cf on cf.app_id = '' and cf.funnel = g.funnel
    left join counted c
      on c.app_id = g.app_id and c.funnel = g.funnel and c.breakdown is not distinct from g.breakdown
     and c.step_index = cf.step_index
)
select r.app_id, r.funnel, b.property, r.breakdown, r.step_index, r.step, r.users,
       case when r.previous_users > 0 then r.users::double precision / r.previous_users end,
       case when r.first_users > 0 then r.users::double precision / r.first_users end,
       r.median_seconds
from stepped r
join compute_funnel_breakdowns b on b.funnel = r.funnel;
end
$function$;
