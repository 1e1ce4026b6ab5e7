-- bulk_split_duplicates: the events a split staging (two COPY streams, SplitStaging) holds more
-- than once, with the first copy's place in the file, found before the file's merge transaction.
-- Grain: one row per (app_id, event_id) staged twice or more. Inputs: {{stage_table}}, whose
-- load_seq is each row's place in the file. Writes {{duplicates}}, an unlogged table of the
-- file's own (named from the kind and file id, never from input), dropped by the merge.
--
-- As bulk_duplicates.sql, but a plain table read by the month tables' builds on two connections
-- (bulk_split_month.sql), which a temporary table could not be; and the staging being a plain
-- table, the grouping may use parallel workers.
create unlogged table {{duplicates}} as
select app_id, event_id, min(load_seq) as first_copy
from {{stage_table}}
group by app_id, event_id
having count(*) > 1;
