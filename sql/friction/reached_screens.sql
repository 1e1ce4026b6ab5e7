-- reached_screens: which users reached which onboarding screen of the apps in $1 (text[]): any
-- `ux` event on the screen, or a `steps` row naming a screen that has telemetry.
-- Grain: one row per (app_id, user_id, screen). Reads: raw_ux, raw_steps.
insert into friction_reached (app_id, user_id, screen)
with from_ux as (
    select distinct app_id, user_id, screen
    from raw_ux
    where app_id = any ($1::text[])
),
screens as (
    select distinct app_id, screen from from_ux
)
select app_id, user_id, screen from from_ux
union
select st.app_id, st.user_id, st.screen
from raw_steps st
join screens sc on sc.app_id = st.app_id and sc.screen = st.screen
where st.app_id = any ($1::text[]);
