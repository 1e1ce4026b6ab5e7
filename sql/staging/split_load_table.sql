-- split_load_table: the load table of a large file staged by two COPY streams (SplitLoad): a
-- partitioned twin of the raw table ({{raw_table}}, same columns in the same order, no index),
-- committed before the COPY so both connections can fill it, with the file's id as file_id's
-- default (the COPY sends the kind's fields only). The loader adds one partition per month as
-- the file brings it (split_load_partition.sql). Beside it, the session's table of the rows that
-- may repeat an earlier row's key ({{suspects_table}}, RepeatedKeyFilter), with each row's place
-- in the file. A load that died left both or neither; they are made afresh.
-- Grain: one row per valid row of the file whose key the reader had not seen before
-- ({{load_table}}); one per other valid row ({{suspects_table}}). Inputs: none. The names and
-- {{file_id}} are fixed in code (the kind's tables, the queue's id), never from input.
drop table if exists {{load_table}};
create table {{load_table}} (like {{raw_table}} including defaults) partition by range ({{time_column}});
alter table {{load_table}} alter column file_id set default {{file_id}};
drop table if exists pg_temp.{{suspects_table}};
create temp table {{suspects_table}} (like {{stage_table}}, load_seq bigint not null);
