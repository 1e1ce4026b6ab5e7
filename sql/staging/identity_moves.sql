-- identity_moves: moves the rows of one raw table stored under the person id of a device that is
-- now tied to a user (stage_identity_moves) to that user: each row is deleted and inserted again
-- with the user's id, its device_id and file_id kept (a raw table distributed by user on Citus
-- cannot update user_id).
-- A template: the loader fills {{raw_table}}, {{columns}} and {{moved_columns}} (the columns with
-- user_id taken from the tie) from the kind's fixed field list in code (EventKind.fields), never
-- from input.
-- Grain: one raw row per moved row. Inputs: stage_identity_moves, the raw table (through its index
-- by user, or over device-only rows). Returns the rows moved. The keys (the raw_*_keys tables)
-- do not change: a moved row is the same event.
with moves as materialized (
    select app_id, user_id, 'device:' || device_id as person_id from stage_identity_moves
), moved as (
    delete from {{raw_table}} r
    using moves m
    where r.app_id = m.app_id and r.user_id = m.person_id and r.user_id like 'device:%'
    returning r.*, m.user_id as linked_user_id
), inserted as (
    insert into {{raw_table}} ({{columns}}, file_id)
    select {{moved_columns}}, file_id from moved
    returning 1
)
select count(*)::bigint as rows_moved from inserted
