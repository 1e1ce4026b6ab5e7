-- dash_kfactor: the invite program per inviters' network ('all' = every network).
-- Grain: one row per (app_id, network). Reads: fct_kfactor.
-- Columns: app_id, network, cohort_size, invites_sent, viral_installs, invites_per_user,
-- invite_conversion, k_factor, cycle_time_hours, amplification, cpi, viral_adjusted_cpi.
-- Re-runnable: applied after the migrations by every migrate that applies one or finds this file
-- changed (create or replace keeps the view's grants; the grant below covers a new database).
create or replace view dash_kfactor as
select k.app_id, k.network, k.cohort_size, k.invites_sent, k.viral_installs, k.invites_per_user,
       k.invite_conversion, k.k_factor, k.cycle_time_hours, k.amplification, k.cpi, k.viral_adjusted_cpi
from fct_kfactor k;

do $$
begin
    if exists (select from pg_roles where rolname = 'funnel_dashboard') then
        execute format('grant select on %I.dash_kfactor to funnel_dashboard', current_schema());
    end if;
end
$$;
