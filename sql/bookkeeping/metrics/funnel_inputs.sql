-- funnel_inputs: records which inputs of the default funnel each app with installs has (opens,
-- rows of the configured onboarding step, purchases) in compute_app_inputs, and returns the
-- apps whose facts were derived under another answer: an app already computed whose opens or
-- onboarding rows arrived for the first time, or computed before this table existed while
-- missing one of them. Their facts must be derived again (compute rebuilds everything). The
-- purchase step is the last, so no fact passes through it: its first purchase only brings the
-- step back into fct_funnel, which every run rebuilds.
-- Presence only grows, so an input once found is not looked for again. $1 (text[]): the apps with
-- installs (installed_apps.sql); each input is probed by app_has_rows (migration 0120), a query of
-- its own, one index probe (on Citus a query of the distributed table; Citus refuses such probes
-- correlated with a list of apps read from the coordinator).
-- Grain: one row per app_id whose answer changed. Reads: raw_opens, raw_steps,
-- raw_purchases, compute_settings, compute_state, compute_app_inputs.
with apps (app_id) as (
    select unnest($1::text[])
), found as (
    select a.app_id, s.onboarding_step,
           coalesce(i.has_opens, false)
               or app_has_rows('raw_opens', a.app_id) as has_opens,
           (coalesce(i.has_onboarding, false) and i.onboarding_step = s.onboarding_step)
               or app_has_rows('raw_steps', a.app_id, s.onboarding_step) as has_onboarding,
           coalesce(i.has_purchases, false)
               or app_has_rows('raw_purchases', a.app_id) as has_purchases,
           i.app_id is not null as known,
           i.has_opens as had_opens, i.has_onboarding as had_onboarding, i.has_purchases as had_purchases,
           exists (select 1 from compute_state cs where cs.app_id = a.app_id) as computed
    from apps a
    cross join (select onboarding_step from compute_settings where app_id = '') s
    left join compute_app_inputs i on i.app_id = a.app_id
    where a.app_id is not null
), written as (
    insert into compute_app_inputs as i (app_id, has_opens, has_onboarding, has_purchases, onboarding_step)
    select app_id, has_opens, has_onboarding, has_purchases, onboarding_step
    from found
    on conflict (app_id) do update
    set has_opens = excluded.has_opens, has_onboarding = excluded.has_onboarding,
        has_purchases = excluded.has_purchases, onboarding_step = excluded.onboarding_step
)
select app_id
from found
where computed
  and (case when known then (had_opens, had_onboarding) is distinct from (has_opens, has_onboarding)
            else not (has_opens and has_onboarding) end);
