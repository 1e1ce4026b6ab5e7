-- Citus layout: which funnel tables are distributed, and how. Builds nothing new: it hands the
-- existing tables to Citus (create_distributed_table / create_reference_table). Run by
-- `funnel migrate` after the migrations, and only on a database with the citus extension; every
-- table already known to Citus is left as it is, so running it again does nothing.
-- Grain and reasons: docs/architecture.md, "On Citus".
--
-- Distributed by user_id, all in one co-location group (user_id is text in every table, same
-- shard count): raw events and the per-user intermediate tables, so the per-user work (fold,
-- funnels, retention, friction) joins shard to shard. app_id stays in every key and filter.
-- Reference tables (a copy on every node): the small settings and rate tables the per-user
-- statements join to.
-- Left on the coordinator: bookkeeping (computed_under among it), rollups and marts (small, written
-- once per run), and the tables whose unique keys do not include user_id (raw_installs, the
-- raw_*_keys tables): Citus refuses a unique constraint without the distribution column. Also on
-- the coordinator: compute_settings (one row, read by the marts' statements, which run there as
-- plain PostgreSQL statements only while they join no Citus table; a per-user statement ships the
-- row to the shards) and int_funnel_points (every point of the default funnel, read whole for
-- its exact medians and rebuilt with its primary key dropped, a DDL Citus refuses on a
-- distributed table in a transaction that has read it in parallel).
do $citus$
declare
    item record;
begin
    for item in
        select name, kind from (values
            ('currency_rates', 'reference'),
            ('raw_currency_rates', 'reference'),
            ('currency_rate_days', 'reference'),
            ('currency_rate_spans', 'reference'),
            ('compute_app_inputs', 'reference'),
            ('compute_funnels', 'reference'),
            ('compute_funnel_breakdowns', 'reference'),
            ('raw_events', 'user'),
            ('raw_steps', 'user'),
            ('raw_opens', 'user'),
            ('raw_purchases', 'user'),
            ('raw_retention', 'user'),
            ('raw_invites', 'user'),
            ('raw_ux', 'user'),
            ('int_user_facts', 'user'),
            ('int_user_funnel_steps', 'user'),
            ('int_user_funnel_breakdown_steps', 'user'),
            ('int_user_retention', 'user'),
            ('int_friction_hits', 'user'),
            ('int_friction_outcomes', 'user'),
            ('int_friction_reached', 'user'),
            ('fct_friction_episodes', 'user')
        ) as layout(name, kind)
    loop
        continue when exists (
            select from pg_dist_partition where logicalrelid = to_regclass('funnel.' || item.name));
        if item.kind = 'reference' then
            perform create_reference_table(format('funnel.%I', item.name)::regclass);
        else
            perform create_distributed_table(format('funnel.%I', item.name)::regclass, 'user_id',
                                             colocate_with => case when item.name = 'raw_events' then 'default'
                                                               else 'funnel.raw_events' end);
        end if;
    end loop;
end
$citus$;
