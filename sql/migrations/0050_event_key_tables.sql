-- 0050_event_key_tables: one key table per event kind that `merge_events.sql` loads (opens,
-- retention, purchases, invites, steps, ux), holding each stored event's (app_id, event_id), and
-- the raw tables' own primary keys dropped. Installs keep theirs (`merge_installs.sql`).
-- Grain: one row per stored event of the kind. Reads: the raw tables (the keys they hold now).
--
-- Why: a raw table's primary key must contain its partition key (the time), so deduplicating by
-- (app_id, event_id) probed the key of every monthly partition for every new event: three probes
-- per row at three months of history, thirteen at a year (where a day whose buffers had gone
-- cold most likely waited on the disk for those keys: 57 s of ingest on 7 s of processor time).
-- The key table answers with one probe whatever the months, and "insert ... on conflict do
-- nothing" into it both checks and records an event. The raw tables' keys, now redundant, are
-- dropped, so each new event still writes one key entry. Measured on a year of history (the
-- day's telemetry file, 27.4k events): the merge took 724-752 ms with the partitions' keys and
-- 382-398 ms with the key table; at three months the two were even.
-- The keys are loaded first and indexed after, which builds each index in one sorted pass.

create table raw_opens_keys (app_id text not null, event_id text not null);
insert into raw_opens_keys (app_id, event_id) select app_id, event_id from raw_opens;
alter table raw_opens_keys add primary key (app_id, event_id);
alter table raw_opens drop constraint raw_opens_pkey;

create table raw_retention_keys (app_id text not null, event_id text not null);
insert into raw_retention_keys (app_id, event_id) select app_id, event_id from raw_retention;
alter table raw_retention_keys add primary key (app_id, event_id);
alter table raw_retention drop constraint raw_retention_pkey;

create table raw_purchases_keys (app_id text not null, event_id text not null);
insert into raw_purchases_keys (app_id, event_id) select app_id, event_id from raw_purchases;
alter table raw_purchases_keys add primary key (app_id, event_id);
alter table raw_purchases drop constraint raw_purchases_pkey;

create table raw_invites_keys (app_id text not null, event_id text not null);
insert into raw_invites_keys (app_id, event_id) select app_id, event_id from raw_invites;
alter table raw_invites_keys add primary key (app_id, event_id);
alter table raw_invites drop constraint raw_invites_pkey;

create table raw_steps_keys (app_id text not null, event_id text not null);
insert into raw_steps_keys (app_id, event_id) select app_id, event_id from raw_steps;
alter table raw_steps_keys add primary key (app_id, event_id);
alter table raw_steps drop constraint raw_steps_pkey;

create table raw_ux_keys (app_id text not null, event_id text not null);
insert into raw_ux_keys (app_id, event_id) select app_id, event_id from raw_ux;
alter table raw_ux_keys add primary key (app_id, event_id);
alter table raw_ux drop constraint raw_ux_pkey;
