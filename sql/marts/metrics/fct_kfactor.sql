-- fct_kfactor: the invite program per inviters' network and for 'all', over inviter cohorts
-- mature for the window W (days 0..W-1 after install have happened). k = invites_per_user x
-- invite_conversion = viral installs per cohort user; cycle time = median hours from inviter
-- install to invitee install; amplification = 1 / (1 - k) when k < 1 (NULL otherwise);
-- viral-adjusted CPI = CPI / amplification. Both CPIs are numeric quotients of the exact spend
-- (migration 0055).
-- Grain: one row per (app_id, network). Reads: int_cohort_rollup (inviter cohorts),
-- int_user_facts (the viral installs), int_spend_day_rollup, compute_state, compute_settings.
delete from fct_kfactor;

with settings as (
    select * from compute_settings where app_id = ''
), mature_cutoff as (
    select cs.app_id,
           cs.data_through_date - (s.kfactor_window_days - 1)
             - case when s.day_rule = 'hours24' then 1 else 0 end as last_cohort_date
    from compute_state cs cross join settings s
), inviters as (
    -- the inviter cohorts' sizes and invites come from the cohort rollup, not the user facts
    select r.app_id, coalesce(r.network, 'all') as network, count(distinct r.cohort_date) as cohorts,
           sum(r.installs) as cohort_size, sum(r.invites_sent) as invites_sent
    from int_cohort_rollup r
    join mature_cutoff m on m.app_id = r.app_id and r.cohort_date <= m.last_cohort_date
    group by grouping sets ((r.app_id, r.network), (r.app_id))
), viral as materialized (
    -- the viral installs that count, gathered first (on Citus from every shard) and grouped
    -- after: Citus runs no grouping sets over a distributed table
    select f.app_id, f.inviter_network,
           date_part('epoch', f.installed_at - f.inviter_installed_at) / 3600.0 as cycle_hours
    from int_user_facts f
    join mature_cutoff m on m.app_id = f.app_id and f.inviter_cohort_date <= m.last_cohort_date
    where f.counts_for_kfactor
), invitees as (
    select app_id, coalesce(inviter_network, 'all') as network, count(*) as viral_installs,
           percentile_cont(0.5) within group (order by cycle_hours) as cycle_time_hours
    from viral
    group by grouping sets ((app_id, inviter_network), (app_id))
), spend as (
    select app_id, coalesce(network, 'all') as network, sum(spend_usd) as spend_usd
    from int_spend_day_rollup group by grouping sets ((app_id, network), (app_id))
), paid as (
    select app_id, coalesce(network, 'all') as network, sum(paid_installs) as paid_installs
    from int_cohort_rollup group by grouping sets ((app_id, network), (app_id))
), measured as (
    select i.app_id, i.network, i.cohorts, i.cohort_size, i.invites_sent,
           coalesce(v.viral_installs, 0) as viral_installs, v.cycle_time_hours,
           case when sp.spend_usd > 0 and p.paid_installs > 0 then sp.spend_usd end as spend_usd,
           p.paid_installs,
           case when i.cohort_size > 0
                then coalesce(v.viral_installs, 0)::double precision / i.cohort_size end as k_factor
    from inviters i
    left join invitees v on v.app_id = i.app_id and v.network = i.network
    left join spend sp on sp.app_id = i.app_id and sp.network = i.network
    left join paid p on p.app_id = i.app_id and p.network = i.network
)
insert into fct_kfactor (app_id, network, cohorts, cohort_size, invites_sent, viral_installs,
                         invites_per_user, invite_conversion, k_factor, cycle_time_hours,
                         amplification, cpi, viral_adjusted_cpi)
select app_id, network, cohorts, cohort_size, invites_sent, viral_installs,
       case when cohort_size > 0 then invites_sent::double precision / cohort_size end,
       case when invites_sent > 0 then viral_installs::double precision / invites_sent end,
       k_factor,
       cycle_time_hours,
       case when k_factor < 1 then 1 / (1 - k_factor) end,
       spend_usd / paid_installs,
       -- CPI x (1 - k) = spend x (cohort_size - viral_installs) / (paid_installs x cohort_size)
       case when k_factor < 1
            then spend_usd * (cohort_size - viral_installs) / (paid_installs * cohort_size) end
from measured;
