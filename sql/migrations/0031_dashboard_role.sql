-- 0031_dashboard_role: funnel_dashboard, the read-only role Grafana connects as. It may read the
-- dash_* views of this schema and nothing else: no raw, intermediate, mart or bookkeeping table,
-- no writes, no new objects. The views run with their owner's rights, so the role needs no grant
-- on the marts they read. Roles are cluster-wide: the role is created only when absent (several
-- databases of one cluster share it) and NOLOGIN; the operator enables login and sets a password
-- or peer/cert authentication (dashboards/README.md). Grain: not applicable. Reads: nothing.

do $$
begin
    if not exists (select from pg_roles where rolname = 'funnel_dashboard') then
        create role funnel_dashboard nologin;
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
    execute format('revoke all on all tables in schema %I from funnel_dashboard', current_schema());
    execute format('revoke all on all sequences in schema %I from funnel_dashboard', current_schema());
    execute format('revoke all on all functions in schema %I from funnel_dashboard', current_schema());
    execute format('revoke create on schema %I from funnel_dashboard', current_schema());
    execute format('grant usage on schema %I to funnel_dashboard', current_schema());
    for view_name in
        select c.relname from pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind = 'v' and c.relname like 'dash\_%'
        order by c.relname
    loop
        execute format('grant select on %I.%I to funnel_dashboard', current_schema(), view_name);
    end loop;
    -- Grafana's queries name the views without a schema.
    execute format('alter role funnel_dashboard in database %I set search_path = %I',
                   current_database(), current_schema());
end
$$;

-- PUBLIC may execute functions by default; nobody but the owner needs this schema's functions.
do $$
begin
    execute format('revoke execute on all functions in schema %I from public', current_schema());
    execute format('alter default privileges in schema %I revoke execute on functions from public', current_schema());
end
$$;

-- PostgreSQL 15 and later already deny CREATE on schema public to PUBLIC in new databases; older
-- servers and upgraded databases did not. Only the schema's owner (or a superuser) can revoke it:
-- others get a warning, and the operator does it (dashboards/README.md).
revoke create on schema public from public;
