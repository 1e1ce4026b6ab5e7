-- int_friction_reached.key: builds int_friction_reached's primary key (migration 0054) again after a rebuild
-- filled the table without it (reset.sql, int_friction_reached.sql).
-- Grain: n/a. Reads: int_friction_reached.
alter table int_friction_reached add constraint int_friction_reached_pkey primary key (app_id, user_id, screen);
