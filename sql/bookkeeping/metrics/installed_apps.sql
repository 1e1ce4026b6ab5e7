-- installed_apps: every app with installs, for funnel_inputs.sql, listed by skipping through
-- raw_installs' key (one index probe per app and partition). A statement of its own: Citus runs a
-- recursive CTE only on tables of one node, and raw_installs stays on the coordinator.
-- Grain: one row per app_id, in order. Reads: raw_installs.
with recursive apps (app_id) as (
    (select app_id from raw_installs order by app_id limit 1)
    union all
    select (select r.app_id from raw_installs r where r.app_id > a.app_id order by r.app_id limit 1)
    from apps a
    where a.app_id is not null
)
select app_id from apps where app_id is not null
