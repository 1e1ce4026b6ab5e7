-- funnel_top: impressions -> clicks -> installs per paid network of one app.
-- Grain: one row per network. Reads: fct_funnel_top.
select network, impressions, clicks, installs, ctr, click_to_install, ipm
from fct_funnel_top
where app_id = $1
order by network = 'all', installs desc, network;
