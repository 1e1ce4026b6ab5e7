-- restore_keys: fills a kind's key table again from its raw table, after keys_lost.sql found it
-- emptied. The raw table holds each event once, so its keys are distinct. The loader drops the
-- primary key first and builds it again after, in the same transaction.
-- Grain: one key row per stored event. Inputs: {{raw_table}}. Writes {{key_table}}.
insert into {{key_table}} (app_id, event_id)
select app_id, event_id
from {{raw_table}};
