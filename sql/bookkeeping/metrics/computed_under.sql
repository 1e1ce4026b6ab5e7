-- computed_under: records that lane $1 ('metrics' or 'friction') has computed under the
-- configuration in force (compute_settings, or UTC and calendar days before any compute wrote
-- one), in the lane's own transaction: a lane that fails keeps its previous record. The metrics'
-- row carries their run (compute_runs); friction has none of its own.
-- Grain: one row per lane. Writes: computed_under. Reads: compute_settings, compute_runs.
insert into computed_under as c (lane, fingerprint, source, settings, time_zone, day_rule, run_id, recorded_at)
select $1::text, s.config_fingerprint, s.source, s.settings,
       coalesce(s.time_zone, 'UTC'), coalesce(s.day_rule, 'calendar'),
       case when $1::text = 'metrics' then (select max(run_id) from compute_runs) end, now()
from (select 1) one
left join compute_settings s on s.app_id = ''
on conflict (lane) do update
set fingerprint = excluded.fingerprint, source = excluded.source, settings = excluded.settings,
    time_zone = excluded.time_zone, day_rule = excluded.day_rule, run_id = excluded.run_id,
    recorded_at = excluded.recorded_at
