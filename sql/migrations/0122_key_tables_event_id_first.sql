-- 0122_key_tables_event_id_first: each event kind's key table (migration 0050; raw_events_keys,
-- 0061) keyed by (event_id, app_id) instead of (app_id, event_id): the same uniqueness, the event id
-- leading. Grain: unchanged, one row per stored event of the kind. Reads: the key tables.
--
-- Why: the bulk merge builds a key table's primary key in one sorted pass when a file brings more
-- keys than the table holds (a first import, a re-import). A sort tells rows apart by an
-- abbreviation of its first column, and one app's keys all share the app id, so every comparison
-- fell through to the event id: building the key over a history's 5.7M telemetry keys took
-- 4.5-6.2 s, and 1.7 s with the event id first. The lookups the merges make give both columns
-- (`on conflict` and the joins), which either order serves.
do $keys$
declare
    key_table text;
begin
    foreach key_table in array array['raw_opens_keys', 'raw_retention_keys', 'raw_purchases_keys',
                                     'raw_invites_keys', 'raw_steps_keys', 'raw_ux_keys', 'raw_events_keys']
    loop
        execute format('alter table %I drop constraint %I', key_table, key_table || '_pkey');
        execute format('alter table %I add constraint %I primary key (event_id, app_id)', key_table, key_table || '_pkey');
    end loop;
end
$keys$;
