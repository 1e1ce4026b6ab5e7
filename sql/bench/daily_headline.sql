-- daily_headline: a few headline figures of the marts, which `funnel bench daily` prints beside
-- the same figures DuckDB computes from the CSV files, so a reader sees both computed the same
-- thing: users, classic D1 and D7 retention, observed LTV D7, CPI (all spend over all paid
-- installs) and k-factor over all networks, the default funnel's last step, and onboarding
-- friction: the episodes found, the flagged (screen, friction type) pairs, and the first-ranked
-- one with its users hit and lost. Grain: one row (the benchmark's data has one app). Reads:
-- int_user_facts, fct_retention_summary, fct_ltv, fct_cpi, fct_kfactor, fct_funnel,
-- fct_friction_episodes, fct_friction_impact.
select (select count(*) from int_user_facts) as users,
       (select rate from fct_retention_summary
         where mode = 'classic' and network = 'all' and day = 1) as d1_retention_all,
       (select rate from fct_retention_summary
         where mode = 'classic' and network = 'all' and day = 7) as d7_retention_all,
       (select ltv from fct_ltv where network = 'all' and day = 7 and not projected) as ltv_d7_all,
       (select sum(spend) / nullif(sum(paid_installs), 0) from fct_cpi
         where network = 'all' and campaign = 'all' and country = 'all')::double precision as cpi_all,
       (select k_factor from fct_kfactor where network = 'all') as k_factor_all,
       (select users from fct_funnel
         where funnel = 'default' and network = 'all' and campaign = 'all' and country = 'all'
           and platform = 'all' and step_index = 4) as first_purchase_all,
       (select count(*) from fct_friction_episodes) as friction_episodes,
       (select count(*) from fct_friction_impact where flagged) as friction_flagged,
       top.screen || ' / ' || top.friction_type as friction_top,
       top.users_hit as friction_top_users_hit,
       top.users_lost as friction_top_users_lost
from (select 1) one
left join lateral (
    select screen, friction_type, users_hit, users_lost
    from fct_friction_impact where rank = 1 order by app_id limit 1) top on true;
