-- friction_available: whether friction results exist for the app (they need UI telemetry, the
-- `ux` files, and a compute after it).
-- Grain: one row. Reads: fct_friction_impact.
select exists (select 1 from fct_friction_impact where app_id = $1) as available;
