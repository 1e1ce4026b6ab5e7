-- bulk_split_leftovers: the tables a split staging of one file left behind when its load died
-- before its merge committed (the staging, its duplicates, month tables), to drop before the file
-- is loaded again. Grain: one row per table. Inputs: $1 the kind, $2 the file id. Names are made
-- only by the loader (SplitStaging), from the kind and the file id.
select c.relname::text as name
from pg_class c
where c.relnamespace = current_schema()::regnamespace
  and c.relkind = 'r'
  and c.relname ~ ('^bulk_(stage|dups|month)_' || $1::text || '_' || $2::bigint || '(_|$)')
order by c.relname;
