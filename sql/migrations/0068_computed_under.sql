-- 0068_computed_under: the configuration reaches every computation by one route and is recorded
-- in one place. compute_settings stays the configuration in force (now also the file it came
-- from and every setting as users wrote them); compute writes it in its own short transaction
-- before the metrics and friction start, and both read it. computed_under records, per lane,
-- the configuration that lane last computed under, each written in the lane's own transaction,
-- so a lane that fails keeps its previous record and redoes its work under the new one next
-- time. It replaces three records: compute_state.config_fingerprint (the metrics' rebuild
-- trigger), compute_configuration (the reports' "computed under") and friction_day_rule
-- (friction's rebuild trigger), whose rows it takes over. Migration 0080 creates
-- compute_configuration after this one on a new database: there it stays empty and unread.
-- Grain: computed_under one row per lane ('metrics', 'friction').
alter table compute_settings
    add column source   text,
    add column settings jsonb;

create table computed_under (
    lane        text        primary key check (lane in ('metrics', 'friction')),
    -- null: recorded before this migration, under a configuration known only by its time zone
    -- and day rule (friction), or with no fingerprint in force (friction before any compute)
    fingerprint text,
    source      text,
    settings    jsonb,
    time_zone   text        not null,
    day_rule    text        not null check (day_rule in ('calendar', 'hours24')),
    run_id      bigint,
    recorded_at timestamptz not null default now()
);

-- The metrics' record: the apps' fingerprint (apps computed under different ones leave a value
-- no configuration has, so the next compute rebuilds everything, as it did), with the settings
-- row's time zone and day rule, and the file and settings compute_configuration recorded.
insert into computed_under (lane, fingerprint, time_zone, day_rule)
select 'metrics', case when st.fingerprints = 1 then st.fingerprint else 'several fingerprints' end,
       s.time_zone, s.day_rule
from (select count(distinct config_fingerprint) as fingerprints, min(config_fingerprint) as fingerprint
      from compute_state having count(*) > 0) st
cross join compute_settings s
where s.app_id = '';

do $$
begin
    if to_regclass('compute_configuration') is not null then
        execute 'update computed_under u
                 set source = c.source, settings = c.settings, run_id = c.run_id, recorded_at = c.recorded_at
                 from compute_configuration c where u.lane = ''metrics''';
        execute 'drop table compute_configuration';
    end if;
end
$$;

insert into computed_under (lane, fingerprint, time_zone, day_rule)
select 'friction', null, time_zone, day_rule from friction_day_rule;

drop table friction_day_rule;
alter table compute_state drop column config_fingerprint;
