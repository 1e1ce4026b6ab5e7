-- dash_friction: onboarding friction, flagged findings first, ranked by the users they cost.
-- Grain: one row per (app_id, screen, friction_type). Reads: fct_friction_impact.
-- Columns: app_id, screen, friction_type, users_hit, users_not_hit, share_hit, dropoff_hit,
-- dropoff_not_hit, relative_risk, p_value, q_value, users_lost, flagged, rank.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_friction as
select f.app_id, f.screen, f.friction_type, f.users_hit, f.users_not_hit,
       case when f.users_hit + f.users_not_hit > 0
            then f.users_hit::double precision / (f.users_hit + f.users_not_hit) end as share_hit,
       f.dropoff_hit, f.dropoff_not_hit, f.relative_risk, f.p_value, f.q_value, f.users_lost,
       f.flagged, f.rank
from fct_friction_impact f;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_friction to funnel_dashboard', current_schema());
    end if;
end
$$;
