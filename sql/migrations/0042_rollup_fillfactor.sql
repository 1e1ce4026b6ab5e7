-- 0042_rollup_fillfactor: leaves room on every page of the three cohort rollups so the daily
-- fold's upserts are HOT updates (the new row version on the same page, no new index entries).
-- At the default fillfactor of 100 a full rebuild packs the pages, and each later update wrote
-- a new entry into the seven-column primary key: 135 of 34,754 day-rollup updates were HOT at
-- 1M users. The setting applies to pages written from now on; the next full rebuild (which
-- truncates the rollups) rewrites them all.
-- Grain: n/a. Reads: nothing.
alter table int_cohort_rollup set (fillfactor = 50);
alter table int_cohort_day_rollup set (fillfactor = 50);
alter table int_cohort_bracket_rollup set (fillfactor = 50);
