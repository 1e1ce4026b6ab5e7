-- 0145_dashboard_users_role: per-user dash_* views leave funnel_dashboard. funnel_dashboard (the
-- role Grafana connects as) reads aggregates only; a dash_* view with a user_id column (each
-- buyer's value, dash_user_value) is read by funnel_dashboard_users alone, a NOLOGIN role a team
-- grants on purpose to the login roles that may see single users (dashboards/README.md). Roles
-- are cluster-wide: the role is created only when absent, as funnel_dashboard is (0031).
-- The per-user views' files in sql/dashboards/ grant funnel_dashboard_users, not funnel_dashboard,
-- so a new database never grants them to funnel_dashboard. Grain: not applicable. Reads: nothing.

do $$
begin
    if not exists (select from pg_roles where rolname = 'funnel_dashboard_users') then
        create role funnel_dashboard_users nologin;
    end if;
exception
    -- another database of the cluster created it at the same moment
    when duplicate_object or unique_violation then null;
end
$$;

do $$
declare
    view_name text;
begin
    execute format('revoke all on all tables in schema %I from funnel_dashboard_users', current_schema());
    execute format('revoke all on all sequences in schema %I from funnel_dashboard_users', current_schema());
    execute format('revoke all on all functions in schema %I from funnel_dashboard_users', current_schema());
    execute format('revoke create on schema %I from funnel_dashboard_users', current_schema());
    execute format('grant usage on schema %I to funnel_dashboard_users', current_schema());
    for view_name in
        select c.relname from pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind = 'v' and c.relname like 'dash\_%'
          and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped)
        order by c.relname
    loop
        execute format('revoke all on %I.%I from funnel_dashboard', current_schema(), view_name);
        execute format('grant select on %I.%I to funnel_dashboard_users', current_schema(), view_name);
    end loop;
    -- Queries name the views without a schema, as funnel_dashboard's do.
    execute format('alter role funnel_dashboard_users in database %I set search_path = %I',
                   current_database(), current_schema());
end
$$;
