-- 0046_day_rollup_key_order: orders the day rollup's primary key, and its rows, by cohort date
-- and day number before the slice columns, so the cells a daily fold changes lie together.
-- A day's fold writes the newest day of each cohort and moves the users whose last active day
-- was a few days before (half of them within a week); with the slice columns before day_n in the
-- key, and the rows in the order a rebuild hashed them, those cells touched nearly every page of
-- the table and of its key: 12.2k and 5.5k pages for 36k cells on the 300k-user bench day, 6.7k
-- and under 0.7k in this order (pages written to the WAL whole after a checkpoint). A full
-- rebuild now writes the rows in this order (int_cohort_rollups.sql); the fold's new cells go to
-- the end.
-- Grain: n/a. Reads: int_cohort_day_rollup (rewritten in key order, at fillfactor 50, see 0042).
alter table int_cohort_day_rollup drop constraint int_cohort_day_rollup_pkey;
alter table int_cohort_day_rollup
    add primary key (app_id, cohort_date, day_n, network, campaign, country, platform);
cluster int_cohort_day_rollup using int_cohort_day_rollup_pkey;
