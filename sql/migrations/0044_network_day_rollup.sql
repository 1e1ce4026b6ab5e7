-- 0044_network_day_rollup: int_cohort_day_rollup summed over campaign, country and platform, the
-- grain the retention triangle and the LTV curve read (fct_retention.sql, fct_ltv.sql). They
-- summed the whole day rollup on every run: about 1 s each on generated data, whose campaign and
-- country cells multiply its rows. Kept by the same rebuild and fold that keep the day rollup
-- (int_cohort_rollups.sql, delta_rollups.sql); rows whose every count and sum is zero are not
-- kept. Half of each page is left free so the fold's upserts are HOT (see 0042).
-- Grain: one row per (app_id, cohort_date, network, day_n). Reads: int_cohort_day_rollup (once,
-- to fill it).
create table int_network_day_rollup (
    app_id            text          not null,
    cohort_date       date          not null,
    network           text          not null,
    day_n             integer       not null,
    active_users      integer       not null,
    last_active_users integer       not null,
    revenue_usd       numeric(20,6) not null,
    payers            integer       not null,
    new_payers        integer       not null,
    primary key (app_id, cohort_date, network, day_n)
) with (fillfactor = 50);

insert into int_network_day_rollup
select app_id, cohort_date, network, day_n, sum(active_users), sum(last_active_users), sum(revenue_usd),
       sum(payers), sum(new_payers)
from int_cohort_day_rollup
group by app_id, cohort_date, network, day_n
having sum(active_users) <> 0 or sum(last_active_users) <> 0 or sum(revenue_usd) <> 0 or sum(payers) <> 0
    or sum(new_payers) <> 0;
