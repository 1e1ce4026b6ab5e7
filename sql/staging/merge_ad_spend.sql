-- merge_ad_spend: upserts one file's staged ad spend into raw_ad_spend (restatement); a replaced
-- row takes the new file's file_id, which is how compute finds the spend dates to redo.
-- Grain: one raw row per (app_id, spend_date, network, campaign, country, adset, creative, hour), a missing hour
-- being one value of its own (the key is NULLS NOT DISTINCT, migrations 0113, 0181). Inputs:
-- stage_ad_spend (the file's valid rows in file order), raw_ad_spend, $1 = file_id. Writes
-- raw_ad_spend. Returns the number of rows inserted or replaced. The caller holds
-- this kind's merge lock (pg_advisory_xact_lock).
--
-- Networks restate spend, so the later row for a key replaces the earlier one: within the file
-- the last row wins (highest ctid = last in COPY order); across files the later file (higher
-- file_id, i.e. enqueued later) wins, whatever order workers happen to commit them in. A row
-- that loses to a later file is counted as a duplicate, not stored.
with staged as (
    select distinct on (app_id, spend_date, network, campaign, country, adset, creative, hour)
        app_id, spend_date, network, spend, campaign, country, currency, impressions, clicks, hour, adset, creative
    from stage_ad_spend
    order by app_id, spend_date, network, campaign, country, adset, creative, hour, ctid desc
),
upserted as (
    insert into raw_ad_spend (app_id, spend_date, network, spend, campaign, country, currency,
                              impressions, clicks, hour, adset, creative, file_id)
    select app_id, spend_date, network, spend, campaign, country, currency, impressions, clicks, hour,
           adset, creative, $1::bigint
    from staged
    on conflict (app_id, spend_date, network, campaign, country, adset, creative, hour) do update
        set spend = excluded.spend,
            currency = excluded.currency,
            impressions = excluded.impressions,
            clicks = excluded.clicks,
            file_id = excluded.file_id
        where raw_ad_spend.file_id <= excluded.file_id
    returning 1
)
select count(*)::bigint as rows_loaded from upserted;
