-- split_index_names: the indexes of a split load's month once attached to the raw table, each with
-- the raw table's index it belongs to, so the loader names them after the partition and that
-- index (raw_opens_2024_05_by_file for raw_opens_by_file) rather than after the load table they
-- were built on.
-- Grain: one row per index of the partition $1 (regclass text). Inputs: the catalog.
select c.relname as index_name, p.relname as parent_index
from pg_index x
join pg_class c on c.oid = x.indexrelid
join pg_inherits h on h.inhrelid = x.indexrelid
join pg_class p on p.oid = h.inhparent
where x.indrelid = $1::regclass
order by c.relname;
