-- merge_installs: moves one file's staged installs into raw_installs, each event once.
-- Grain: one raw row per new (app_id, event_id). Inputs: stage_installs (the file's valid rows in
-- file order), raw_installs, $1 = file_id. Writes raw_installs. Returns the number
-- of rows inserted. The caller holds this kind's merge lock (pg_advisory_xact_lock), so no other
-- transaction inserts installs between the "not exists" check and the insert.
--
-- Within the file the first occurrence of an event wins (ctid = COPY order: the staging table is
-- truncated, then only appended to by COPY in one session). An event already stored is skipped
-- whatever its timestamp: the primary key holds the partition key, so "not exists" on
-- (app_id, event_id) over every partition does the deduplication, not "on conflict".
-- Nothing is marked for compute: it finds the rows of files it has not folded in by file_id,
-- and rebuilds the cohorts their installs land in and the cohorts their users come from.
with staged as (
    select distinct on (app_id, event_id)
        event_id, app_id, user_id, installed_at, network, platform, country, campaign,
        referrer_user_id, invite_id, adset, creative, device_id
    from stage_installs
    order by app_id, event_id, ctid
),
inserted as (
    insert into raw_installs (event_id, app_id, user_id, installed_at, network, platform, country,
                              campaign, referrer_user_id, invite_id, adset, creative, device_id, file_id)
    select s.event_id, s.app_id, s.user_id, s.installed_at, s.network, s.platform, s.country,
           s.campaign, s.referrer_user_id, s.invite_id, s.adset, s.creative, s.device_id, $1::bigint
    from staged s
    where not exists (
        select 1 from raw_installs r where r.app_id = s.app_id and r.event_id = s.event_id)
    returning 1
)
select count(*)::bigint as rows_loaded from inserted;
