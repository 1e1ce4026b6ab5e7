-- raw_counts: whether anything was ingested at all, to tell "nothing loaded" from "loaded but not
-- computed" in the zero state. Grain: one row. Reads: raw_installs, raw_ad_spend.
select exists (select 1 from raw_installs) as has_installs,
       exists (select 1 from raw_ad_spend) as has_spend;
