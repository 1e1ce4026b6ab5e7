-- fct_friction_impact.delete_apps: clears the impact and breakdown rows of the apps in $1 (text[]) before they
-- are recomputed whole.
-- Grain: fct_friction_impact and fct_friction_breakdown rows. Reads: nothing.
with cleared as (
    delete from fct_friction_breakdown where app_id = any ($1::text[]) returning 1
)
delete from fct_friction_impact where app_id = any ($1::text[]);
