-- 0190_campaign_money: money at the grain a team buys at (docs/metrics.md, "Money by campaign"):
-- per network, per campaign and per campaign and country, the spend, installs, paid installs,
-- payers, CPI, chained LTV and ROAS on days 7, 30 and 90, the campaign's LTV_D7 pooled toward its
-- network (empirical Bayes: the weight of its own data), the projected LTV_D180 with its interval
-- and ROAS, the payback day and the verdict with its reason. Spend and installs meet at the grain
-- the spend has: a campaign whose spend is stated without a country has its country rows under
-- country '' (every country's installs), never spend in one cell and installs in another.
-- Grain: one row per (app_id, network, campaign, country); campaign 'all' is the network,
-- country 'all' the campaign. Reads: nothing (written by compute from fct_cpi and the rollups).
create table fct_campaigns (
    app_id              text    not null,
    network             text    not null,
    campaign            text    not null,
    country             text    not null,
    cohorts             integer not null,
    installs            bigint  not null,
    paid_installs       bigint  not null,
    payers              bigint  not null,
    spend               numeric not null,
    cpi                 numeric,
    ltv_d7              numeric,
    ltv_d30             numeric,
    ltv_d90             numeric,
    roas_d7             double precision,
    roas_d30            double precision,
    roas_d90            double precision,
    last_day            integer,
    observed_ltv_d7     numeric,
    pooled_ltv_d7       numeric,
    pooling_weight      double precision,
    ltv_projected_d180  numeric,
    ltv_d180_low        numeric,
    ltv_d180_high       numeric,
    roas_projected_d180 double precision,
    payback_day         integer,
    payback_basis       text,
    verdict             text    not null default 'n/a',
    reason              text    not null default '',
    primary key (app_id, network, campaign, country)
);
