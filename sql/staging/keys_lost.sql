-- keys_lost: whether a kind's key table lost its rows (an unlogged table, migration 0124, which
-- PostgreSQL empties after a crash): empty while the raw table holds events, which every stored
-- event's key would contradict.
-- Grain: one row. Inputs: {{key_table}}, {{raw_table}} (names fixed in code, EventKind).
select not exists (select 1 from {{key_table}}) and exists (select 1 from {{raw_table}}) as lost;
