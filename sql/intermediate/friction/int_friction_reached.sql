-- int_friction_reached: which users reached which screen, from the window's `ux` events (their screens
-- have telemetry) and `steps` rows naming a screen; every raw row when $1 (boolean) asks for a
-- rebuild. Readers count a screen only when it has telemetry (int_friction_screens). The rows an
-- incremental run adds are kept in friction_new_reached for int_friction_screen_counts.fold.sql.
-- Grain: int_friction_reached one row per (app_id, screen, user_id); int_friction_screens one
-- row per (app_id, screen); friction_new_reached the rows added. Reads: friction_window, raw_ux,
-- raw_steps. Window rows are found between the lowest and highest file_id of the window (index
-- on file_id). A rebuild fills the table without its key (bookkeeping/friction/reset.sql drops it,
-- int_friction_reached.key.sql builds it again): the rows are distinct, and their conflict checks and key
-- inserts took most of the statement's time (1.4M rows at 300k users).
with ux as (
    select distinct u.app_id, u.screen, u.user_id
    from raw_ux u
    where $1::boolean
       or (u.file_id between (select min(file_id) from friction_window)
                         and (select max(file_id) from friction_window)
           and u.file_id in (select file_id from friction_window))
), steps as (
    select distinct st.app_id, st.screen, st.user_id
    from raw_steps st
    where st.screen is not null
      and ($1::boolean
           or (st.file_id between (select min(file_id) from friction_window)
                              and (select max(file_id) from friction_window)
               and st.file_id in (select file_id from friction_window)))
), screens as (
    insert into int_friction_screens (app_id, screen)
    select distinct app_id, screen from ux
    on conflict do nothing
), added as (
    insert into int_friction_reached (app_id, screen, user_id)
    select app_id, screen, user_id from ux
    union
    select app_id, screen, user_id from steps
    on conflict do nothing
    returning app_id, screen, user_id
)
insert into friction_new_reached (app_id, screen, user_id)
select app_id, screen, user_id from added
where not $1::boolean
