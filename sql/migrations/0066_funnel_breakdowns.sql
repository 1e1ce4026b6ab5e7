-- 0066_funnel_breakdowns: configured funnels broken down by an event or person property
-- ([[funnels]] breakdown). int_user_funnel_breakdown_steps keeps the steps each user's counted
-- attempt reached per breakdown value (a user may count under several values with the
-- all_events or step attribution, as in PostHog); funnel_breakdown_steps() turns them into the
-- steps of each value, over every cohort or a range of install cohorts; fct_funnel_breakdown
-- stores them for every cohort, and dash_funnel_breakdown shows them to dashboards.
-- Grain: int_user_funnel_breakdown_steps one row per (app_id, user_id, funnel, breakdown,
-- step_index), breakdown null for a user without the property; fct_funnel_breakdown and the
-- function one row per (app_id, funnel, breakdown, step_index).
-- compute_funnel_breakdowns names each such funnel's property, as compute_funnels names steps.
-- Reads: int_user_facts (cohort dates, for a range), compute_funnels, compute_funnel_breakdowns.
create table compute_funnel_breakdowns (
    funnel      text primary key,
    property    text not null,
    source      text not null check (source in ('event', 'person')),
    attribution text not null
);

create table int_user_funnel_breakdown_steps (
    app_id     text        not null,
    user_id    text        not null,
    funnel     text        not null,
    breakdown  text,
    step_index integer     not null,
    reached_at timestamptz not null,
    constraint int_user_funnel_breakdown_steps_key
        unique nulls not distinct (app_id, user_id, funnel, breakdown, step_index)
);

create table fct_funnel_breakdown (
    app_id                    text             not null,
    funnel                    text             not null,
    property                  text             not null,
    breakdown                 text,
    step_index                integer          not null,
    step                      text             not null,
    users                     bigint           not null,
    conversion_from_previous  double precision,
    conversion_from_first     double precision,
    median_seconds_to_convert double precision,
    constraint fct_funnel_breakdown_key unique nulls not distinct (app_id, funnel, breakdown, step_index)
);

create function funnel_breakdown_steps(app text, from_date date, to_date date)
returns table (app_id text, funnel text, property text, breakdown text, step_index integer, step text, users bigint,
               conversion_from_previous double precision, conversion_from_first double precision,
               median_seconds_to_convert double precision)
language sql stable
as $function$
with reached as (
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
join compute_funnel_breakdowns b on b.funnel = r.funnel
$function$;

-- dash_funnel_breakdown: configured funnels broken down by a property, every computed cohort;
-- breakdown is the property's value, null for users without it.
-- Grain: one row per (app_id, funnel, breakdown, step_index).
-- Columns: app_id, funnel, property, breakdown, step_index, step, users, conversion_from_previous,
-- conversion_from_first, median_seconds_to_convert.
create view dash_funnel_breakdown as
select f.app_id, f.funnel, f.property, f.breakdown, f.step_index, f.step, f.users, f.conversion_from_previous,
       f.conversion_from_first, f.median_seconds_to_convert
from fct_funnel_breakdown f;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_funnel_breakdown to funnel_dashboard', current_schema());
    end if;
end
$$;
