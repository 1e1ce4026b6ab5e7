-- 0016_funnel_steps: funnel_steps(app, from, to), every funnel's steps for the users of the
-- install cohorts in [from, to] (nulls = every app, open range): users, conversion from the
-- previous and the first step, median seconds from the previous step, overall and broken down by
-- network, campaign, country and platform (one at a time; the others 'all'). fct_funnel stores it
-- for every cohort; reports call it for a date range.
-- The default funnel (install -> first open -> onboarding complete -> regular user -> first
-- purchase) comes from the user facts; user-defined funnels from int_user_funnel_steps. Follows
-- PostHog: a user counts at every step they reached; cohorts still inside their window count as
-- they stand. Seconds are double precision (date_part), not numeric (extract): the medians sort a
-- million values per step, three times faster so.
-- Grain: one row per (app_id, funnel, network, campaign, country, platform, step_index). Reads:
-- int_user_facts (through its cohort index for a range), int_user_funnel_steps, compute_funnels.
create function funnel_steps(app text, from_date date, to_date date)
returns table (app_id text, funnel text, network text, campaign text, country text, platform text,
               step_index integer, step text, users bigint, conversion_from_previous double precision,
               conversion_from_first double precision, median_seconds_to_convert double precision)
language sql stable
as $function$
with users as not materialized (
    -- one narrow row per user, each step's seconds from the previous step, null when not reached
    -- (a step is only reached after the previous one, so a count of seconds counts the step).
    -- Not materialized: each reader scans the facts itself, cheaper than copying them once.
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
), custom_seconds as (
    select s.app_id, s.user_id, s.funnel, s.step_index,
           date_part('epoch', s.reached_at - lag(s.reached_at) over (
               partition by s.app_id, s.user_id, s.funnel order by s.step_index)) as seconds
    from int_user_funnel_steps s
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
join compute_funnels cf on cf.app_id = '' and cf.funnel = r.funnel and cf.step_index = r.step_index
$function$;
