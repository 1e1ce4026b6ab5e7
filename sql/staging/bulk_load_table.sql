-- bulk_load_table: the transaction's load table of the bulk merge: a partitioned twin of the raw
-- table ({{raw_table}}, same columns in the same order, no index), with a default partition for
-- the rows of months the raw table already has a partition for. The loader adds one partition per
-- new month, named as the raw table's own (raw_<kind>_YYYY_MM), which it detaches and attaches to
-- the raw table once filled; the load table is dropped before commit.
-- Grain: one row per new event of the file. Inputs: none. The names are fixed in code (the kind's
-- table), never from input.
create table {{load_table}} (like {{raw_table}} including defaults) partition by range ({{time_column}});
create table {{load_table}}_stored partition of {{load_table}} default;
