-- status_loaded: what is loaded, per app and kind: the rows stored and the span of their times
-- (UTC dates), for funnel status. Reads every raw table once (a full scan of each: status is an
-- occasional look, not a dashboard). Grain: one row per (app_id, kind) with rows.
select app_id, kind, rows, first_date, last_date
from (
    select app_id, 'installs' as kind, count(*)::bigint as rows,
           min(installed_at at time zone 'UTC')::date::text as first_date, max(installed_at at time zone 'UTC')::date::text as last_date
    from raw_installs group by app_id
    union all
    select app_id, 'opens', count(*), min(opened_at at time zone 'UTC')::date::text, max(opened_at at time zone 'UTC')::date::text
    from raw_opens group by app_id
    union all
    select app_id, 'retention', count(*), min(reported_at at time zone 'UTC')::date::text, max(reported_at at time zone 'UTC')::date::text
    from raw_retention group by app_id
    union all
    select app_id, 'purchases', count(*), min(purchased_at at time zone 'UTC')::date::text, max(purchased_at at time zone 'UTC')::date::text
    from raw_purchases group by app_id
    union all
    select app_id, 'invites', count(*), min(sent_at at time zone 'UTC')::date::text, max(sent_at at time zone 'UTC')::date::text
    from raw_invites group by app_id
    union all
    select app_id, 'ad_spend', count(*), min(spend_date)::text, max(spend_date)::text
    from raw_ad_spend group by app_id
    union all
    select app_id, 'steps', count(*), min(occurred_at at time zone 'UTC')::date::text, max(occurred_at at time zone 'UTC')::date::text
    from raw_steps group by app_id
    union all
    select app_id, 'ux', count(*), min(occurred_at at time zone 'UTC')::date::text, max(occurred_at at time zone 'UTC')::date::text
    from raw_ux group by app_id
    union all
    select app_id, 'events', count(*), min(occurred_at at time zone 'UTC')::date::text, max(occurred_at at time zone 'UTC')::date::text
    from raw_events group by app_id
) loaded
order by app_id, kind;
