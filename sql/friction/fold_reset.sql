-- fold_reset: empties the friction tables of migration 0040 before a rebuild from every raw row.
-- Grain: whole tables. Reads: nothing.
truncate int_friction_reached, int_friction_screens, int_friction_outcomes, int_friction_apps, friction_files
