-- 0120_app_input_probe: app_has_rows(table, app_id[, step]), whether a raw table holds a row of
-- the app (of that onboarding step, for raw_steps), for funnel_inputs.sql. A PL/pgSQL function so
-- each probe is a query of its own: one index probe on plain PostgreSQL, and on Citus a query of
-- the distributed table that its planner takes alone (Citus refuses those probes inside
-- funnel_inputs.sql's recursive listing of the apps, which reads raw_installs on the coordinator).
-- Reads: raw_opens, raw_steps, raw_purchases.
create function app_has_rows(raw_table text, app text, onboarding_step text default null)
returns boolean
language plpgsql stable
set search_path = funnel, public
as $$
begin
    case raw_table
        when 'raw_opens' then
            return exists (select 1 from raw_opens where app_id = app);
        when 'raw_steps' then
            return exists (select 1 from raw_steps where app_id = app and step = onboarding_step);
        when 'raw_purchases' then
            return exists (select 1 from raw_purchases where app_id = app);
    end case;
end
$$;
