-- regular_users: users with at least R opens on days 1..D over the mature cohorts of one app.
-- Grain: one row per network. Reads: fct_regular_users.
select network, cohorts, cohort_size, regular_users, rate
from fct_regular_users
where app_id = $1
order by network <> 'all', network;
