-- 0064_verdict_sample: what a verdict needs to stand on. compute_settings gains the smallest
-- sample a network needs for a double down or a cut ([verdict] min_installs, min_payers) and the
-- projection horizon (the largest [ltv] horizon), past which a payback day is not projected;
-- fct_networks gains each network's payers (users with a purchase).
-- Grain: as the tables'. Reads: nothing.
alter table compute_settings
    add column min_installs integer not null default 100,
    add column min_payers   integer not null default 10,
    add column ltv_horizon  integer not null default 365;

alter table fct_networks add column payers bigint;
