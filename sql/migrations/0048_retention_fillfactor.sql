-- 0048_retention_fillfactor: leaves room on every page of the retention triangle so the daily
-- run's changed cells are HOT updates (the new row version on the same page, no new entry in the
-- primary key). A day changes about 23k of the 57k cells at 300k users (the newest diagonal and
-- the rolling cells of returning users); written in place at the default fillfactor of 100 they
-- took 390 ms, at 60 about 100 ms (the delete and re-insert of every changed row before: 330-410 ms).
-- Grain: n/a. Reads: fct_retention (rewritten at the new fillfactor).
alter table fct_retention set (fillfactor = 60);
cluster fct_retention using fct_retention_pkey;
