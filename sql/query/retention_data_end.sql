-- retention_data_end: the latest moment of one app's data, from which a retention query takes its
-- default as-of date (that moment's date in the retention's time zone): as compute's last date
-- with data, the latest install, open, retention row, purchase or invite, and also the latest
-- custom event (the events kind); onboarding steps and UI telemetry, which compute's date leaves
-- out, only for an app with nothing else.
-- Grain: one row. Inputs: $1 app_id. Reads: raw_installs, raw_opens, raw_retention,
-- raw_purchases, raw_invites, raw_events, analysis_events.
select (extract(epoch from coalesce(
           greatest((select max(installed_at) from raw_installs where app_id = $1),
                    (select max(opened_at) from raw_opens where app_id = $1),
                    (select max(reported_at) from raw_retention where app_id = $1),
                    (select max(purchased_at) from raw_purchases where app_id = $1),
                    (select max(sent_at) from raw_invites where app_id = $1),
                    (select max(occurred_at) from raw_events where app_id = $1)),
           (select max(e.occurred_at) from analysis_events e where e.app_id = $1))) * 1000000)::bigint as last_micros
