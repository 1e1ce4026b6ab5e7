-- 0047_friction_day_rule: friction's day-1 return counted the way the metrics count day 1 (SPEC.md
-- "Metrics"): in the reporting time zone, by calendar days or by 24-hour periods from the install
-- moment, instead of by UTC calendar days. Each user's outcome keeps the bounds of their day 1;
-- each app keeps the end of its last day with an open (day 1 is known once it ends by then).
-- friction_day_rule records the time zone and rule the outcomes were computed under; a friction
-- run whose configuration differs (or that finds no row, as after this migration) rebuilds them.
-- Grain: friction_day_rule at most one row. Reads: nothing (the outcomes' new columns stay null
-- until that rebuild; a null day 1 counts as unknown).

-- The moment day `day` of an install starts: the local midnight `day` calendar days after the
-- install date in `time_zone`, or `day` whole 24-hour periods after the install moment. The
-- inverse of cohort_day_number (0013). A plain SQL function so the planner inlines it.
create function cohort_day_start(installed_at timestamptz, day integer, time_zone text, day_rule text)
returns timestamptz
language sql
stable
parallel safe
as $$
    select case
        when day_rule = 'hours24' then installed_at + day * interval '24 hours'
        else ((timezone(time_zone, installed_at))::date + day)::timestamp at time zone time_zone
    end
$$;

create table friction_day_rule (
    singleton boolean primary key default true check (singleton),
    time_zone text    not null,
    day_rule  text    not null check (day_rule in ('calendar', 'hours24'))
);

alter table int_friction_outcomes
    drop column install_date,
    add column day1_from timestamptz,
    add column day1_to   timestamptz;

alter table int_friction_apps
    drop column last_open_date,
    add column data_through timestamptz;

-- The class of one user's outcome (see 0045): day 1 is known when the user has one and it ended
-- by the end of the app's last day with an open (as the metrics call a cohort-day mature).
drop function friction_outcome_class(boolean, date, boolean, date);
create function friction_outcome_class(completed boolean, day1_to timestamptz, returned_d1 boolean,
                                       data_through timestamptz) returns smallint
    language sql immutable parallel safe
    return (case when completed then 3 else 0 end
            + case when day1_to is null or data_through is null or day1_to > data_through then 0
                   when returned_d1 then 2
                   else 1 end)::smallint;
