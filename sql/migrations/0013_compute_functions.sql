-- 0013_compute_functions: the day-number rule every compute step shares.
-- Grain: n/a. Reads: nothing.
--
-- cohort_day_number: the day after install on which an event falls. 'calendar' (AppsFlyer):
-- the event's date in the reporting time zone minus the cohort date. 'hours24' (Adjust,
-- Singular): whole 24-hour periods since the install moment (day 1 = 24-48 h). A plain SQL
-- function so the planner inlines it.
create function cohort_day_number(event_at timestamptz, installed_at timestamptz, cohort_date date,
                                  time_zone text, day_rule text)
returns integer
language sql
stable
parallel safe
as $$
    select case
        when day_rule = 'hours24' then floor(extract(epoch from (event_at - installed_at)) / 86400)::integer
        else (timezone(time_zone, event_at))::date - cohort_date
    end
$$;
