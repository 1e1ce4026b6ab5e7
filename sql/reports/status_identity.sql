-- status_identity: per app, the people known by a device alone (a device id and no user id yet,
-- stored under 'device:' || device_id) and the devices tied to a user id, for funnel status
-- (docs/inputs.md, "Users, devices and identity"). Reads the device-only rows of every raw table
-- that names people (through their indexes by user, or over device-only rows) and identity_links.
-- Grain: one row per app_id with either.
with device_people as (
    select app_id, count(distinct user_id)::bigint as device_only_users
    from (
        select app_id, user_id from raw_installs where user_id like 'device:%'
        union all select app_id, user_id from raw_opens where user_id like 'device:%'
        union all select app_id, user_id from raw_retention where user_id like 'device:%'
        union all select app_id, user_id from raw_purchases where user_id like 'device:%'
        union all select app_id, user_id from raw_invites where user_id like 'device:%'
        union all select app_id, user_id from raw_steps where user_id like 'device:%'
        union all select app_id, user_id from raw_ux where user_id like 'device:%'
        union all select app_id, user_id from raw_events where user_id like 'device:%'
    ) p
    group by app_id
), linked as (
    select app_id, count(*)::bigint as linked_devices from identity_links group by app_id
)
select coalesce(d.app_id, l.app_id) as app_id,
       coalesce(d.device_only_users, 0) as device_only_users,
       coalesce(l.linked_devices, 0) as linked_devices
from device_people d
full join linked l on l.app_id = d.app_id
order by 1
