-- leftover_load_tables: the split loads' tables (bulk_load_<kind>_<file id>, SplitLoad) in the
-- schema, with their file's id, for the sweep that drops those whose file no worker is loading (a
-- load that died, or a file that finally failed, leaves its table until the file is loaded again,
-- which may never happen: a corrected file is a new file).
-- Grain: one row per such partitioned table. Inputs: the catalog.
select c.relname as table_name,
       substring(c.relname from '^bulk_load_[a-z_]+_([0-9]+)$')::bigint as file_id
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
where n.nspname = current_schema()
  and c.relkind = 'p'
  and c.relname ~ '^bulk_load_[a-z_]+_[0-9]+$'
order by c.relname;
