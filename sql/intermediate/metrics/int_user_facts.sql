-- int_user_facts: rebuilds the facts of every scope user: cohort and attribution (first
-- install), reinstalls, first open, onboarding completion, regular-user status (at least R opens
-- on days 1..D; reached at the R-th such open), first purchase, invites sent within the k-factor
-- window, last active day, and the default funnel's step times. Funnel steps each come after the
-- previous one: first open and onboarding within the window from install, regular user once both
-- onboarding and the R-th open happened, first purchase after that within the purchase window.
-- The facts keep the user's state (active and purchase days, regular-window open times, purchase
-- times) for later folds. A step whose input the app never loaded (compute_app_inputs: no opens,
-- no onboarding rows, migration 0065) is passed through: reached at the step before it, so the
-- funnel leaves it out rather than stopping every user there (no opens pass through the first
-- open and the regular-user step). Grain: one row per (app_id, user_id). Reads: scope_installs,
-- scope_user_state, scope_onboarding, compute_settings, compute_app_inputs, scope_inviters (the
-- links to inviters, found before the facts in a rebuild of all history and empty otherwise:
-- int_user_facts.inviters.sql). Writes funnel_fact_changes too.
-- The funnel side of every deleted and written row goes to funnel_fact_changes (see
-- int_funnel_points.fold.sql), except in a rebuild of all history (funnel.fact_changes = off).
with gone as (
    delete from int_user_facts f
    using scope_installs si
    where f.app_id = si.app_id and f.user_id = si.user_id
    returning f.*
)
insert into funnel_fact_changes
select -1, f.app_id, f.user_id, f.network, f.campaign, f.country, f.platform,
       date_part('epoch', f.funnel_open_at - f.installed_at),
       date_part('epoch', f.funnel_onboarded_at - f.funnel_open_at),
       date_part('epoch', f.funnel_regular_at - f.funnel_onboarded_at),
       date_part('epoch', f.funnel_purchase_at - f.funnel_regular_at)
from gone f;

with gone as (
    delete from int_user_facts f
    using compute_scope sc
    where f.app_id = sc.app_id and f.cohort_date = sc.cohort_date
    returning f.*
)
insert into funnel_fact_changes
select -1, f.app_id, f.user_id, f.network, f.campaign, f.country, f.platform,
       date_part('epoch', f.funnel_open_at - f.installed_at),
       date_part('epoch', f.funnel_onboarded_at - f.funnel_open_at),
       date_part('epoch', f.funnel_regular_at - f.funnel_onboarded_at),
       date_part('epoch', f.funnel_purchase_at - f.funnel_regular_at)
from gone f;

with settings as (
    select * from compute_settings where app_id = ''
), base as (
    select si.*, st.first_open_at, st.regular_opens, st.first_purchase_day, st.last_active_day,
           st.invites_sent, st.active_days, st.purchase_days, st.regular_open_times, st.purchase_times,
           case when st.regular_opens >= s.regular_opens then st.regular_open_times[s.regular_opens] end as regular_at,
           ob.step_times, ai.has_opens, ai.has_onboarding,
           make_interval(days => s.window_days) as step_window,
           make_interval(days => s.purchase_window_days) as purchase_window
    from scope_installs si
    cross join settings s
    join scope_user_state st on st.app_id = si.app_id and st.user_id = si.user_id
    left join scope_onboarding ob on ob.app_id = si.app_id and ob.user_id = si.user_id
    left join compute_app_inputs ai on ai.app_id = si.app_id
), with_open as (
    select b.*,
           case when b.has_opens is false then b.installed_at
                when b.first_open_at < b.installed_at + b.step_window then b.first_open_at end as funnel_open_at
    from base b
), with_onboarding as (
    select w.*,
           case when w.has_onboarding is false then w.funnel_open_at
                else (select min(t) from unnest(w.step_times) as t
                      where t >= w.funnel_open_at and t < w.installed_at + w.step_window) end as funnel_onboarded_at
    from with_open w
), with_regular as (
    select w.*,
           case when w.has_opens is false then w.funnel_onboarded_at
                when w.funnel_onboarded_at is not null and w.regular_at is not null
                then greatest(w.regular_at, w.funnel_onboarded_at) end as funnel_regular_at
    from with_onboarding w
), written as (
    insert into int_user_facts (
        app_id, user_id, cohort_date, installed_at, network, campaign, country, platform, acquisition,
        installs, referrer_user_id, invite_id, first_open_at, onboarded_at, first_purchase_at,
        first_purchase_day, regular_opens, regular_at, funnel_open_at, funnel_onboarded_at,
        funnel_regular_at, funnel_purchase_at, invites_sent, last_active_day, active_days, purchase_days,
        regular_open_times, purchase_times, inviter_user_id, inviter_network, inviter_cohort_date,
        inviter_installed_at, counts_for_kfactor)
    select w.app_id, w.user_id, w.cohort_date, w.installed_at, w.network, w.campaign, w.country, w.platform,
           case when w.referrer_user_id is not null or w.invite_id is not null then 'viral'
                when lower(w.network) = 'organic' then 'organic'
                else 'paid' end,
           w.installs, w.referrer_user_id, w.invite_id, w.first_open_at, w.step_times[1], w.purchase_times[1],
           w.first_purchase_day, w.regular_opens, w.regular_at, w.funnel_open_at, w.funnel_onboarded_at,
           w.funnel_regular_at,
           (select min(t) from unnest(w.purchase_times) as t
             where t >= w.funnel_regular_at and t < w.installed_at + w.purchase_window),
           w.invites_sent, w.last_active_day, w.active_days, w.purchase_days, w.regular_open_times,
           w.purchase_times, l.inviter_user_id, l.inviter_network, l.inviter_cohort_date, l.inviter_installed_at,
           coalesce(l.counts_for_kfactor, false)
    from with_regular w
    left join scope_inviters l on l.app_id = w.app_id and l.user_id = w.user_id
    -- in key order, so a fold's probes of the returning users (in key order too) read the pages
    -- one after another rather than each at random
    order by w.app_id, w.user_id
    returning *
)
insert into funnel_fact_changes
select 1, f.app_id, f.user_id, f.network, f.campaign, f.country, f.platform,
       date_part('epoch', f.funnel_open_at - f.installed_at),
       date_part('epoch', f.funnel_onboarded_at - f.funnel_open_at),
       date_part('epoch', f.funnel_regular_at - f.funnel_onboarded_at),
       date_part('epoch', f.funnel_purchase_at - f.funnel_regular_at)
from written f
-- a rebuild of all history fills the funnel points from every user's facts instead
where current_setting('funnel.fact_changes', true) is distinct from 'off';
