-- 0015_file_id_btrees: b-tree indexes on file_id for every raw table, replacing the block-range
-- indexes of 0014, and one for raw_ux, so compute finds the rows of files it has not folded in
-- yet (and where friction must look again) by index. A block-range index only narrows the search
-- for ranges already summarized, and nothing summarizes them between a load and the next compute,
-- so each run read whole partitions. file_id grows with each file, so a b-tree takes its entries
-- at the right edge (cheap for the loader) and deduplicates the repeated keys (small).
-- The loader no longer marks dirty cohort days: compute finds every new row by file_id.
-- Also raw_steps by user: a fold reads the onboarding steps of the few users whose funnel may
-- move, which without it meant scanning every step.
-- Grain: none (indexes, a storage setting). Reads: nothing.
drop index raw_installs_by_file;
drop index raw_opens_by_file;
drop index raw_retention_by_file;
drop index raw_purchases_by_file;
drop index raw_invites_by_file;
drop index raw_steps_by_file;
drop index raw_ad_spend_by_file;

create index raw_installs_by_file on raw_installs (file_id);
create index raw_opens_by_file on raw_opens (file_id);
create index raw_retention_by_file on raw_retention (file_id);
create index raw_purchases_by_file on raw_purchases (file_id);
create index raw_invites_by_file on raw_invites (file_id);
create index raw_steps_by_file on raw_steps (file_id);
create index raw_ad_spend_by_file on raw_ad_spend (file_id);
create index raw_ux_by_file on raw_ux (file_id);
create index raw_steps_by_user on raw_steps (app_id, user_id);

-- A fold updates most returning users' facts in place (counters, the last active day), none of
-- them indexed: room left on each page lets those updates stay on the page (HOT) instead of
-- writing new entries into both indexes. A full rebuild rewrites the table with that room.
alter table int_user_facts set (fillfactor = 85);
