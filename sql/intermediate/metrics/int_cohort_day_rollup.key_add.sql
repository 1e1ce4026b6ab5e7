-- int_cohort_day_rollup.key_add: builds the day rollup's primary key again after a rebuild of the
-- whole history wrote every cell without it (int_cohort_day_rollup.key_drop.sql): the same key as
-- migration 0046, marked as the table's clustering index as that migration left it.
-- Grain: n/a. Reads: int_cohort_day_rollup.
alter table int_cohort_day_rollup
    add constraint int_cohort_day_rollup_pkey primary key (app_id, cohort_date, day_n, network, campaign, country, platform);
alter table int_cohort_day_rollup cluster on int_cohort_day_rollup_pkey;
