-- raw_rows_estimate: how many rows a raw table holds, from its partitions' statistics (the
-- planner's own estimate; 0 before any analyze). The loader compares it with a file's staged rows
-- to choose how the merge looks events up (see FileLoader.prefersIndexProbes).
-- Grain: one row. Reads: pg_inherits, pg_class. Parameter: $1 the raw table's name.
select coalesce(sum(greatest(c.reltuples, 0)), 0)::float8
from pg_inherits i
join pg_class c on c.oid = i.inhrelid
where i.inhparent = $1::regclass
