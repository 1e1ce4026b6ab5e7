-- fct_funnel: every funnel's steps for every computed cohort (funnel_steps(), migration 0016,
-- over all apps and dates).
-- Grain: one row per (app_id, funnel, network, campaign, country, platform, step_index).
-- Reads: int_user_facts, int_user_funnel_steps, compute_funnels (through funnel_steps).
delete from fct_funnel;

insert into fct_funnel (app_id, funnel, network, campaign, country, platform, step_index, step, users,
                        conversion_from_previous, conversion_from_first, median_seconds_to_convert)
select * from funnel_steps(null, null, null);
