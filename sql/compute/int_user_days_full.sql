-- int_user_days_full: stores every user's days after a rebuild of all history (reset emptied the
-- table). The primary key is built once after the load instead of maintained row by row, which
-- is about twice as fast on millions of rows.
-- Grain: one row per (app_id, user_id, day_n). Reads: scope_user_days.
alter table int_user_days drop constraint int_user_days_pkey;

insert into int_user_days select * from scope_user_days;

alter table int_user_days add constraint int_user_days_pkey primary key (app_id, user_id, day_n);
