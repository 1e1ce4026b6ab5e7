-- split_index_definitions: the raw table's indexes, for building the same on a split load's new
-- months before they are attached (ATTACH PARTITION then takes them as the partitions' indexes
-- instead of building its own): the part of each index's definition after the table's name
-- ("USING btree (user_id, app_id, session_id)"), and the kind of constraint it backs, if any
-- ('p' primary key, 'u' unique): a constraint's index matches only one that backs the same kind of
-- constraint, which the merge adds with USING INDEX once the index is built.
-- Grain: one row per index of {{raw_table}}. Inputs: the catalog.
select i.indisunique as is_unique,
       c.contype::text as constraint_type,
       substring(pg_get_indexdef(i.indexrelid) from ' USING .*$') as definition
from pg_index i
left join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid
where i.indrelid = '{{raw_table}}'::regclass
order by i.indexrelid;
