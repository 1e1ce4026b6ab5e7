-- identity_ties: records the ties one file's stored rows make between a device and the app's
-- user (a row with both user_id and device_id), and notes each new tie as a device whose earlier
-- rows move to the user (identity_moves.sql).
-- A template: the loader fills {{ties}} with a union over the raw tables of the kinds whose rows in
-- the file carry device ids, each giving (app_id, device_id, user_id, at) for its rows of file $1,
-- built in code from fixed names (IdentityLinks), never from input.
-- Grain: identity_links one row per new (app_id, device_id); stage_identity_moves one row per new
-- tie. Inputs: the file's raw rows (through each raw table's index on file_id), identity_links,
-- $1 = file_id. The caller holds the identity lock (IdentityLinks) until the file's commit.
-- The first tie stored wins and is never replaced: a tie already in identity_links is kept (a
-- later row tying the device to another user keeps its own user id and moves nothing); within
-- the file, the earliest row in time wins, then the lowest user id.
with offered as (
    select distinct on (app_id, device_id) app_id, device_id, user_id
    from ({{ties}}) t
    order by app_id, device_id, at, user_id
), added as (
    insert into identity_links (app_id, device_id, user_id, file_id)
    select app_id, device_id, user_id, $1::bigint from offered
    on conflict (app_id, device_id) do nothing
    returning app_id, device_id, user_id
)
insert into stage_identity_moves (app_id, device_id, user_id)
select app_id, device_id, user_id from added
