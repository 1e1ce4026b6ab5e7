-- merge_events: moves one file's staged events of one kind (opens, retention, purchases,
-- invites, steps, ux) into its raw table, each event once, and records the (app, cohort day)
-- pairs the new rows touch. A template: the loader fills {{raw_table}}, {{stage_table}},
-- {{columns}} and {{staged_columns}} from the kind's fixed field list in code (EventKind.fields),
-- never from input. installs and ad_spend have their own merges.
-- Grain: one raw row per new (app_id, event_id). Inputs: the staging table (the file's valid
-- rows in file order), the raw table, raw_installs (first installs), $1 = file_id. Writes the raw
-- table and stage_dirty. Returns the number of rows inserted. The caller holds this kind's merge
-- lock (pg_advisory_xact_lock), so no other transaction inserts this kind between the
-- "not exists" check and the insert.
--
-- Within the file the first occurrence of an event wins (ctid = COPY order: the staging table is
-- truncated, then only appended to by COPY in one session). An event already stored is skipped
-- whatever its timestamp ("not exists" on (app_id, event_id) over every partition).
-- Dirty cohorts: the UTC date of the first install of each user the new rows belong to; a user
-- without a known install is marked when the install arrives (merge_installs).
with staged as (
    select distinct on (app_id, event_id)
        {{columns}}
    from {{stage_table}}
    order by app_id, event_id, ctid
),
inserted as (
    insert into {{raw_table}} ({{columns}}, file_id)
    select {{staged_columns}}, $1::bigint
    from staged s
    where not exists (
        select 1 from {{raw_table}} r where r.app_id = s.app_id and r.event_id = s.event_id)
    returning app_id, user_id
),
dirty as (
    insert into stage_dirty (app_id, cohort_date)
    select u.app_id, (first_install.installed_at at time zone 'UTC')::date
    from (select distinct app_id, user_id from inserted) u
    cross join lateral (
        select r.installed_at
        from raw_installs r
        where r.app_id = u.app_id and r.user_id = u.user_id
        order by r.installed_at
        limit 1
    ) first_install
)
select count(*)::bigint as rows_loaded from inserted;
