-- int_cohort_day_rollup.key_drop: drops the day rollup's primary key before a rebuild of the whole
-- history writes every cell (int_cohort_rollups.sql, on a table reset.sql emptied);
-- int_cohort_day_rollup.key_add.sql builds it again from the written rows, one sorted build
-- instead of 574k inserts into the key at 300k users (1.1-1.6 s of 15-17 s for the rollups, in
-- psql). Grain: n/a. Reads: nothing.
alter table int_cohort_day_rollup drop constraint int_cohort_day_rollup_pkey;
