-- app_tables: every table of funnel's schema with an app_id column, for `funnel apps delete`:
-- partitioned parents and plain tables, not partitions (a delete from a parent reaches them).
-- Grain: one row per table, in name order; has_file_id says whether its rows name the input
-- file they came from. Reads: the catalog.
select c.relname::text as table_name,
       exists (
           select 1 from pg_attribute f
           where f.attrelid = c.oid and f.attname = 'file_id' and not f.attisdropped
       ) as has_file_id
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
join pg_attribute a on a.attrelid = c.oid and a.attname = 'app_id' and not a.attisdropped
where n.nspname = current_schema()
  and c.relkind in ('r', 'p')
  and not c.relispartition
order by c.relname
