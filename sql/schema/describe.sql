-- describe: the current schema as DDL text, from the catalog, in a fixed order: every table
-- (columns, defaults, partitioning), its constraints and indexes, every view and every function
-- of the schema in search_path's first place. sql/schema.sql is this text for a database the
-- migrations built; a test keeps the two equal (make schema writes the file again). Monthly
-- partitions are left out: ingest creates them as data arrives.
-- Grain: one row per object, in order. Reads: the system catalogs.
with target as (
    select current_schema()::regnamespace as nsp
), tables as (
    select c.oid, c.relname, c.relkind, c.relpersistence
    from pg_class c, target t
    where c.relnamespace = t.nsp and c.relkind in ('r', 'p') and not c.relispartition
), table_ddl as (
    select 1 as part, t.relname as name, 0 as sub,
           format(E'create %stable %I (\n%s\n)%s;', case when t.relpersistence = 'u' then 'unlogged ' else '' end, t.relname,
                  string_agg(format('    %I %s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
                                    case when a.attnotnull then ' not null' else '' end,
                                    coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')),
                             E',\n' order by a.attnum),
                  case when t.relkind = 'p' then ' partition by ' || pg_get_partkeydef(t.oid) else '' end) as ddl
    from tables t
    join pg_attribute a on a.attrelid = t.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = t.oid and d.adnum = a.attnum
    group by t.oid, t.relname, t.relkind, t.relpersistence
), constraint_ddl as (
    select 1 as part, t.relname as name, 1 as sub,
           string_agg(format('alter table %I add constraint %I %s;', t.relname, k.conname, pg_get_constraintdef(k.oid)),
                      E'\n' order by k.conname) as ddl
    from tables t
    join pg_constraint k on k.conrelid = t.oid
    group by t.relname
), index_ddl as (
    select 1 as part, t.relname as name, 2 as sub,
           string_agg(pg_get_indexdef(i.indexrelid) || ';', E'\n' order by ic.relname) as ddl
    from tables t
    join pg_index i on i.indrelid = t.oid
    join pg_class ic on ic.oid = i.indexrelid
    where not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.conrelid = t.oid)
    group by t.relname
), view_ddl as (
    select 2 as part, c.relname as name, 0 as sub,
           format(E'create view %I as\n%s', c.relname, pg_get_viewdef(c.oid, 100)) as ddl
    from pg_class c, target t
    where c.relnamespace = t.nsp and c.relkind = 'v'
), function_ddl as (
    select 3 as part, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as name, 0 as sub,
           pg_get_functiondef(p.oid) || ';' as ddl
    from pg_proc p, target t
    where p.pronamespace = t.nsp and p.prokind in ('f', 'p')
)
select ddl
from (
    select * from table_ddl
    union all select * from constraint_ddl
    union all select * from index_ddl
    union all select * from view_ddl
    union all select * from function_ddl
) o
order by part, name, sub;
