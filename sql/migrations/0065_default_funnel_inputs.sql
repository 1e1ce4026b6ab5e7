-- 0065_default_funnel_inputs: which inputs of the default acquisition funnel each app has. A
-- step whose input was never loaded for an app (no opens, no rows of the configured onboarding
-- step, no purchases) is left out of that app's funnel instead of zeroing every later step:
-- int_user_facts.sql passes such a step through (reached when the step before it is), and
-- default_funnel_left_out names it for fct_funnel, the reports and their notes.
-- Grain: compute_app_inputs one row per app_id; default_funnel_left_out one row per (app_id,
-- step_index) left out. Reads: compute_settings (the onboarding step's name).
create table compute_app_inputs (
    app_id          text    primary key,
    has_opens       boolean not null,
    has_onboarding  boolean not null,
    has_purchases   boolean not null,
    -- the step name has_onboarding was judged for ([funnel] onboarding_step)
    onboarding_step text    not null
);

create view default_funnel_left_out as
select i.app_id, l.step_index, l.step, l.reason
from compute_app_inputs i
cross join lateral (values
    (1, 'first_open', 'no opens are loaded for this app', not i.has_opens),
    (2, i.onboarding_step, format('no "%s" onboarding step is loaded for this app', i.onboarding_step),
     not i.has_onboarding),
    (3, 'regular_user', 'no opens are loaded for this app', not i.has_opens),
    (4, 'first_purchase', 'no purchases are loaded for this app', not i.has_purchases)
) as l (step_index, step, reason, left_out)
where l.left_out;
