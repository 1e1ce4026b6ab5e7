-- retry_spend_losers: before a retried file's ad spend is merged, drops its staged rows whose key
-- a later file has restated: the retry keeps its first entry's place in the order of files
-- (ranks_as), so it never overwrites a newer restatement (merge_ad_spend.sql compares file_ids,
-- and a retry's file_id is new).
-- Grain: removes stage_ad_spend rows. Inputs: stage_ad_spend, raw_ad_spend, ingest_files,
-- $1 = the place the file ranks as (its first entry's file_id). Returns the rows dropped.
with losers as (
    delete from stage_ad_spend s
    using raw_ad_spend r
    join ingest_files f on f.file_id = r.file_id
    where r.app_id = s.app_id and r.spend_date = s.spend_date and r.network = s.network
      and r.campaign = s.campaign and r.country = s.country and r.adset = s.adset and r.creative = s.creative
      and r.hour is not distinct from s.hour
      and coalesce(f.ranks_as, f.file_id) > $1::bigint
    returning 1
)
select count(*)::bigint from losers;
