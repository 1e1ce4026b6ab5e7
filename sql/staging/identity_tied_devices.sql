-- identity_tied_devices: notes the devices of one file's device-only rows that are tied to a user
-- already (by an earlier file, or by this file's identity_ties.sql), so that those rows move to
-- the user too (identity_moves.sql): a linked device's later rows count for its user at once.
-- A template: the loader fills {{device_rows}} with a union over the raw tables of the kinds whose
-- rows in the file carry device ids, each giving (app_id, device_id) for its device-only rows of
-- file $1, built in code from fixed names (IdentityLinks), never from input.
-- Grain: stage_identity_moves one row per (app_id, device_id). Inputs: the file's raw rows,
-- identity_links, $1 = file_id.
insert into stage_identity_moves (app_id, device_id, user_id)
select distinct d.app_id, d.device_id, l.user_id
from ({{device_rows}}) d
join identity_links l on l.app_id = d.app_id and l.device_id = d.device_id
on conflict do nothing
