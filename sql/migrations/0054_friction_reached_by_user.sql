-- 0054_friction_reached_by_user: keys int_friction_reached by user first, (app_id, user_id,
-- screen), and drops its index by (app_id, user_id), which the new key now serves. Nothing reads
-- the table by screen: fold_reached.sql probes whole keys, fold_screen_counts.sql a user's rows,
-- the rebuilds scan it. A day's new rows (the new users, a few screens each) now land in one place
-- per user in one index, instead of one place per screen in the key and one more in the user
-- index: a bench day at 90 days wrote 8.7k + 2.6k index pages (each whole after a checkpoint),
-- and friction's fold took 1.27 s against 0.97 s after (three interleaved pairs of `funnel run`).
-- Grain unchanged: one row per (app_id, screen, user_id). Reads: int_friction_reached.
alter table int_friction_reached
    drop constraint int_friction_reached_pkey,
    add primary key (app_id, user_id, screen);

drop index int_friction_reached_by_user;
