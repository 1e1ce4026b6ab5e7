-- kfactor: the invite program's k-factor of one app by the inviters' network.
-- Grain: one row per network. Reads: fct_kfactor.
select network, cohorts, cohort_size, invites_sent, viral_installs, invites_per_user,
       invite_conversion, k_factor, cycle_time_hours, amplification, cpi, viral_adjusted_cpi
from fct_kfactor
where app_id = $1
order by network <> 'all', network;
