-- identity_moves_pending: keeps of the devices to move (stage_identity_moves) those whose person
-- id holds stored rows: most ties come with the device's first row, and moving nothing needs no
-- mark for compute. Returns the devices left.
-- Grain: stage_identity_moves one row per device to move. Inputs: the raw tables (through their
-- indexes by user, or over device-only rows).
with idle as (
    delete from stage_identity_moves m
    where not exists (select 1 from raw_installs r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id)
      and not exists (select 1 from raw_opens r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id and r.user_id like 'device:%')
      and not exists (select 1 from raw_retention r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id and r.user_id like 'device:%')
      and not exists (select 1 from raw_purchases r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id and r.user_id like 'device:%')
      and not exists (select 1 from raw_invites r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id and r.user_id like 'device:%')
      and not exists (select 1 from raw_steps r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id)
      and not exists (select 1 from raw_ux r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id)
      and not exists (select 1 from raw_events r where r.app_id = m.app_id and r.user_id = 'device:' || m.device_id)
    returning 1
)
select (select count(*) from stage_identity_moves) - (select count(*) from idle) as devices
