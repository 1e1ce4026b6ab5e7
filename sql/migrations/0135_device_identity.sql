-- 0135_device_identity: device ids on every event kind, and the links that tie a device to the
-- app's user (docs/inputs.md, "Users, devices and identity").
-- Grain: raw_<kind>.device_id one value per stored row (null: the row named no device);
-- identity_links one row per (app_id, device_id) ever tied to a user id. Reads: nothing (ingest
-- writes these).
--
-- A row with a device id and no user id is stored under the device's person id,
-- 'device:' || device_id, which no user id may begin with (the validator rejects one), so a
-- device never takes the history of a user whose id has the same text. A row with both ids ties
-- the device to the user: the first tie stored wins (within a file, the earliest row in time,
-- then the lowest user id) and is never replaced. The file's merge transaction records the tie
-- and moves the device's rows to the user (IdentityLinks), so every raw row of a linked device
-- carries the user id, and each metric reads one person without knowing about devices.
-- Moving a row deletes and inserts it with its file_id (raw tables distributed by user on Citus
-- cannot update user_id).

alter table raw_installs add column device_id text;
alter table raw_opens add column device_id text;
alter table raw_retention add column device_id text;
alter table raw_purchases add column device_id text;
alter table raw_invites add column device_id text;
alter table raw_steps add column device_id text;
alter table raw_ux add column device_id text;
alter table raw_events add column device_id text;

create table identity_links (
    app_id    text        not null,
    device_id text        not null,
    user_id   text        not null,
    -- the file whose row made the tie
    file_id   bigint      not null,
    linked_at timestamptz not null default now(),
    primary key (app_id, device_id)
);

-- A newly linked device's rows are found by its person id. Installs, steps, ux and events have an
-- index by user already (0004, 0015, 0100, 0123); the others get one over device-only rows alone,
-- which stays as small as the unlinked devices' history.
create index raw_opens_device_people on raw_opens (app_id, user_id) where user_id like 'device:%';
create index raw_retention_device_people on raw_retention (app_id, user_id) where user_id like 'device:%';
create index raw_purchases_device_people on raw_purchases (app_id, user_id) where user_id like 'device:%';
create index raw_invites_device_people on raw_invites (app_id, user_id) where user_id like 'device:%';
