-- 0131_refunds_not_purchases: a refund (a purchase row with a negative revenue, the amount
-- refunded on the day of the refund; docs/inputs.md) is no purchase event: analysis_events, the
-- events funnels and retention over any event read, leaves it out, so the purchase step of a
-- funnel is reached by purchases only. Its revenue still nets the metrics of its day
-- (scope_user_days.sql). The view is made again as migration 0062 made it, with that one filter.
-- Grain: one row per stored event of any kind but refunds. Reads: raw_installs, raw_opens,
-- raw_retention, raw_purchases, raw_invites, raw_steps, raw_ux, raw_events.
create or replace view analysis_events as
select 'installs'::text as kind, app_id, event_id, user_id, 'install'::text as event,
       installed_at as occurred_at,
       jsonb_strip_nulls(jsonb_build_object(
           'network', network, 'platform', platform, 'country', country, 'campaign', campaign,
           'referrer_user_id', referrer_user_id, 'invite_id', invite_id)) as properties
from raw_installs
union all
select 'opens', app_id, event_id, user_id, 'app_open', opened_at,
       jsonb_strip_nulls(jsonb_build_object('session_seconds', session_seconds))
from raw_opens
union all
select 'retention', app_id, event_id, user_id, 'retention_day', reported_at,
       jsonb_build_object('day', day)
from raw_retention
union all
select 'purchases', app_id, event_id, user_id, 'purchase', purchased_at,
       jsonb_strip_nulls(jsonb_build_object('revenue', revenue, 'currency', currency, 'product_id', product_id))
from raw_purchases
where revenue >= 0
union all
select 'invites', app_id, event_id, user_id, 'invite_sent', sent_at,
       jsonb_strip_nulls(jsonb_build_object('invite_id', invite_id, 'channel', channel))
from raw_invites
union all
select 'steps', app_id, event_id, user_id, step, occurred_at,
       jsonb_strip_nulls(jsonb_build_object('screen', screen))
from raw_steps
union all
select 'ux', app_id, event_id, user_id, 'ux_' || type, occurred_at,
       jsonb_strip_nulls(jsonb_build_object(
           'session_id', session_id, 'screen', screen, 'phase', phase, 'orientation', orientation,
           'feedback_shown', feedback_shown, 'permission', permission, 'guidance_shown', guidance_shown,
           'field', field, 'message_shown', message_shown, 'bad_state', bad_state, 'input_mode', input_mode))
from raw_ux
union all
select 'events', app_id, event_id, user_id, event, occurred_at, coalesce(properties, '{}'::jsonb)
from raw_events;
