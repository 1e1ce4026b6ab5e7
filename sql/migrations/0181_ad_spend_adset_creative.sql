-- 0181_ad_spend_adset_creative: spend by ad set and creative below the campaign, as networks and
-- MMPs' cost reports give it (docs/inputs.md, "ad_spend"). adset and creative are part of the
-- row's key, absent being '' as for campaign and country, so the ad sets of one campaign are rows
-- of their own and each is restated by a later row with its key; reports still sum by campaign.
-- Grain: raw_ad_spend one row per (app_id, spend_date, network, campaign, country, adset,
-- creative, hour), a missing hour one value of its own (NULLS NOT DISTINCT). Reads: nothing.
alter table raw_ad_spend
    add column adset    text not null default '',
    add column creative text not null default '';
alter table raw_ad_spend drop constraint raw_ad_spend_key;
alter table raw_ad_spend add constraint raw_ad_spend_key
    unique nulls not distinct (app_id, spend_date, network, campaign, country, adset, creative, hour);
