-- settings_in_force: the reporting time zone and day rule friction counts a day-1 return in: the
-- configuration in force (compute_settings, which compute writes before either lane starts; UTC
-- and calendar days before any compute), and the ones friction last counted under (null before
-- its first run), so a run under others rebuilds the outcomes.
-- Grain: one row (time_zone, day_rule, previous_time_zone, previous_day_rule).
-- Reads: compute_settings, computed_under (friction's row).
select coalesce((select time_zone from compute_settings where app_id = ''), 'UTC') as time_zone,
       coalesce((select day_rule from compute_settings where app_id = ''), 'calendar') as day_rule,
       (select time_zone from computed_under where lane = 'friction') as previous_time_zone,
       (select day_rule from computed_under where lane = 'friction') as previous_day_rule
