-- bulk_insert_keys: records the keys of the events the bulk merge loaded in the kind's key table.
-- Grain: one key row per new (app_id, event_id). Inputs: {{load_table}} (this file's new events,
-- each once). Writes {{key_table}}. When the key table holds fewer keys than the file brings, the
-- loader drops its primary key first and builds it again afterwards (one sorted pass instead of
-- one index insertion per key: 1.9M telemetry keys 2.9-6.3 s against 7.4 s), in the same
-- transaction, so the key is never missing for anyone else.
insert into {{key_table}} (app_id, event_id)
select app_id, event_id
from {{load_table}};
