-- default_app: the app a query reads when none is named: the one with the most installs, else
-- the first with any event. Grain: at most one row. Reads: raw_installs, analysis_events.
select coalesce(
    (select app_id from raw_installs group by app_id order by count(*) desc, app_id limit 1),
    (select app_id from analysis_events order by app_id limit 1)) as app_id
