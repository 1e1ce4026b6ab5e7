-- 0122_key_tables_event_id_first: each event kind's key table (migration 0050; raw_events_keys,
-- 0061) keyed by (event_id, app_id) instead of (app_id, event_id): the same uniqueness, the event id
-- leading. Grain: unchanged, one row per stored event of the kind. Reads: the key tables.
--
-- Why: the bulk merge builds a key table's primary key in one sorted pass when a file brings more
-- keys than the table holds (a first import, a re-import). A sort tells rows apart by an
-- abbreviation of its first column, and one app's keys all share the app id, so every comparison
-- fell through to the event id: building the key over a history's 5.7M telemetry keys took
-- 4.5-6.2 s, and 1.7 s with the event id first. The lookups the merges make give both columns
-- (`on conflict` and the joins), which either order serves.
alter table raw_opens_keys drop constraint raw_opens_keys_pkey;
alter table raw_opens_keys add constraint raw_opens_keys_pkey primary key (event_id, app_id);

alter table raw_retention_keys drop constraint raw_retention_keys_pkey;
alter table raw_retention_keys add constraint raw_retention_keys_pkey primary key (event_id, app_id);

alter table raw_purchases_keys drop constraint raw_purchases_keys_pkey;
alter table raw_purchases_keys add constraint raw_purchases_keys_pkey primary key (event_id, app_id);

alter table raw_invites_keys drop constraint raw_invites_keys_pkey;
alter table raw_invites_keys add constraint raw_invites_keys_pkey primary key (event_id, app_id);

alter table raw_steps_keys drop constraint raw_steps_keys_pkey;
alter table raw_steps_keys add constraint raw_steps_keys_pkey primary key (event_id, app_id);

alter table raw_ux_keys drop constraint raw_ux_keys_pkey;
alter table raw_ux_keys add constraint raw_ux_keys_pkey primary key (event_id, app_id);

alter table raw_events_keys drop constraint raw_events_keys_pkey;
alter table raw_events_keys add constraint raw_events_keys_pkey primary key (event_id, app_id);
