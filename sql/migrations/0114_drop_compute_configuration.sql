-- 0114_drop_compute_configuration: on a database made new, migration 0080 ran after 0068 (which
-- took the configuration's record over into computed_under and dropped compute_configuration)
-- and created compute_configuration again, empty and read by nothing. This drops it; on a
-- database 0068 upgraded it is already gone.
-- Grain: n/a. Reads: nothing.
drop table if exists compute_configuration;
