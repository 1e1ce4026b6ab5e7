-- split_load_partition: one month's partition of a split load table, made before the first batch
-- that brings a row of the month is COPYed. Named after the file (never a raw partition's
-- name, which a concurrent loader may be creating); the merge renames it when it attaches it.
-- Grain: one row per new event of the file in that month. Inputs: none; the names and bounds are
-- fixed in code.
create table {{partition}} partition of {{load_table}} for values from ('{{from}}') to ('{{to}}');
