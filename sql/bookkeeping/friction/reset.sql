-- reset: empties the friction tables of migrations 0040 and 0045 before a rebuild from every raw row.
-- The reached screens' primary key is dropped until int_friction_reached.sql has refilled the
-- table (int_friction_reached.key.sql builds it again, in one sorted pass).
-- Grain: whole tables. Reads: nothing.
truncate int_friction_reached, int_friction_screens, int_friction_outcomes, int_friction_apps, friction_files,
         int_friction_screen_counts;

alter table int_friction_reached drop constraint int_friction_reached_pkey;
