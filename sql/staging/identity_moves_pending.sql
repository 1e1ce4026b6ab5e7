-- identity_moves_pending: keeps of the devices to move (stage_identity_moves) those whose person
-- id holds stored rows: most ties come with the device's first row, and moving nothing needs no
-- mark for compute. Returns the devices left.
-- Grain: stage_identity_moves one row per device to move. Inputs: the raw tables (through their
-- indexes by user, or over device-only rows).
-- The devices with rows are found by joins of the gathered devices to each raw table, not by
-- correlated probes from the temporary table (which Citus refuses against distributed tables).
with people as materialized (
    select app_id, device_id, 'device:' || device_id as person_id from stage_identity_moves
), stored as materialized (
    select p.app_id, p.device_id from people p join raw_installs r on r.app_id = p.app_id and r.user_id = p.person_id
    union
    select p.app_id, p.device_id from people p
    join raw_opens r on r.app_id = p.app_id and r.user_id = p.person_id and r.user_id like 'device:%'
    union
    select p.app_id, p.device_id from people p
    join raw_retention r on r.app_id = p.app_id and r.user_id = p.person_id and r.user_id like 'device:%'
    union
    select p.app_id, p.device_id from people p
    join raw_purchases r on r.app_id = p.app_id and r.user_id = p.person_id and r.user_id like 'device:%'
    union
    select p.app_id, p.device_id from people p
    join raw_invites r on r.app_id = p.app_id and r.user_id = p.person_id and r.user_id like 'device:%'
    union
    select p.app_id, p.device_id from people p join raw_steps r on r.app_id = p.app_id and r.user_id = p.person_id
    union
    select p.app_id, p.device_id from people p join raw_ux r on r.app_id = p.app_id and r.user_id = p.person_id
    union
    select p.app_id, p.device_id from people p join raw_events r on r.app_id = p.app_id and r.user_id = p.person_id
), idle as (
    delete from stage_identity_moves m
    where not exists (select 1 from stored s where s.app_id = m.app_id and s.device_id = m.device_id)
    returning 1
)
select (select count(*) from stage_identity_moves) - (select count(*) from idle) as devices
