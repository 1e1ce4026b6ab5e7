-- reset: empties the friction tables of migrations 0040 and 0045 before a rebuild from every raw row.
-- Grain: whole tables. Reads: nothing.
truncate int_friction_reached, int_friction_screens, int_friction_outcomes, int_friction_apps, friction_files,
         int_friction_screen_counts
