-- compute_state: records, per app, the last date with data (in the reporting time zone) that
-- the scope's events reach; maturity of every cohort-day is judged against it. It only moves
-- forward, except on a full rebuild, which starts from an empty state.
-- Grain: one row per app_id. Reads: scope_user_days, delta_new_days (a fold's new days),
-- scope_last_events (a whole-history rebuild's days, summed in the client), scope_installs,
-- compute_settings.
with settings as (
    select * from compute_settings where app_id = ''
), latest as (
    select app_id, max(last_event_at) as last_at
    from (
        select app_id, last_event_at from scope_user_days
        union all
        select app_id, last_event_at from delta_new_days
        union all
        select app_id, last_event_at from scope_last_events
        union all
        select app_id, installed_at from scope_installs
    ) e
    group by app_id
)
insert into compute_state (app_id, data_through_date, computed_at)
select l.app_id, (timezone(s.time_zone, l.last_at))::date, now()
from latest l
cross join settings s
on conflict (app_id) do update
set data_through_date = greatest(compute_state.data_through_date, excluded.data_through_date),
    computed_at = excluded.computed_at;
