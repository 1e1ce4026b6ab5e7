-- 0124_key_tables_unlogged: each event kind's key table (migrations 0050, 0061, 0122) unlogged:
-- its rows and its primary key are written without the write-ahead log. Grain: unchanged, one
-- row per stored event of the kind. Reads: the key tables.
--
-- Why: a key table is derived data, every stored event's (event_id, app_id), which the raw tables
-- hold too. Logging it cost as much as building it: a history's 5.7M telemetry keys inserted in
-- 5.2 s and their primary key built in 3.4 s, against 2.4 s and 2.3 s unlogged; the import of a
-- 300k-user history took 35.1-35.6 s against 38.9-40.7 s.
--
-- What it changes: after a crash of the server (not of funnel) PostgreSQL empties unlogged tables,
-- a physical backup or a standby has them empty, and a standby cannot read them. The loader
-- therefore checks, under a kind's merge lock and before anything reads the key table, whether it
-- is empty while the raw table holds events, and if so fills it again from the raw table in the
-- same transaction (BulkMerge.restoreLostKeys); nothing else reads the key tables.
alter table raw_opens_keys set unlogged;
alter table raw_retention_keys set unlogged;
alter table raw_purchases_keys set unlogged;
alter table raw_invites_keys set unlogged;
alter table raw_steps_keys set unlogged;
alter table raw_ux_keys set unlogged;
alter table raw_events_keys set unlogged;
