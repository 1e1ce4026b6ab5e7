-- split_column_types: the type of each column of a split load's table, so the load's COPY can be
-- written in binary (BinaryLayout), which needs each value in its column's exact type.
-- Grain: one row per column of the table. Inputs: $1 the load table's name (fixed in code,
-- SplitLoad.table).
select a.attname::text as name, format_type(a.atttypid, null) as type
from pg_attribute a
where a.attrelid = $1::text::regclass and a.attnum > 0 and not a.attisdropped
