-- int_user_days: stores the days just rebuilt from the raw rows (scope_user_days) for the scope
-- users, replacing what was stored for them and for the users who left the scope's cohorts, so a
-- later run can fold new rows into them without rereading the history.
-- Grain: one row per (app_id, user_id, day_n). Reads: scope_user_days, scope_installs,
-- int_user_facts, compute_scope. Runs before int_user_facts replaces the scope cohorts' facts,
-- on partial runs only (a full rebuild rewrites the table: int_user_days_full.sql).
--
-- The rows to replace are found user by user through the primary key and deleted by row address:
-- joining the users to the table instead let the planner scan every stored day (millions of
-- rows) to delete a few thousand.
delete from int_user_days
where ctid = any (array(
    select d.ctid
    from (
        select app_id, user_id from scope_installs
        union
        select f.app_id, f.user_id
        from compute_scope sc
        cross join lateral (
            select x.app_id, x.user_id from int_user_facts x
            where x.app_id = sc.app_id and x.cohort_date = sc.cohort_date offset 0
        ) f
    ) u
    cross join lateral (
        select y.ctid from int_user_days y where y.app_id = u.app_id and y.user_id = u.user_id offset 0
    ) d
));

insert into int_user_days select * from scope_user_days;
