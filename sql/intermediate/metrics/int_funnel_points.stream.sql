-- int_funnel_points.stream: every point of the default funnel's steps 1-4, just written by
-- int_funnel_points.sql, for the client to compute each group's median from
-- (FunnelMedianTable). Unordered: the client sorts each group's seconds itself, beside the
-- server's next statement. Columns by position: app_id, step_index (bigint), seconds, network,
-- campaign, country, platform.
-- Grain: one row per (app_id, step_index, user_id). Reads: int_funnel_points.
select app_id, step_index::bigint, seconds, network, campaign, country, platform
from int_funnel_points
where funnel = 'default'
