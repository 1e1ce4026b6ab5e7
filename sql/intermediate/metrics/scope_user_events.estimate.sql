-- scope_user_events.estimate: how many events scope_user_events.stream.sql would send at most,
-- from the planner's row counts of the raw tables' partitions (0 where never analyzed), so a
-- rebuild of the whole history sums the users' days in the client only while they fit its memory
-- bound, and reserves room for them at once.
-- Grain: one row. Reads: pg_class, pg_partition_tree (raw_opens, raw_retention, raw_purchases,
-- raw_invites).
select coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint as events
from unnest(array['raw_opens', 'raw_retention', 'raw_purchases', 'raw_invites']::regclass[]) as r (parent)
cross join lateral pg_partition_tree(r.parent) t
join pg_class c on c.oid = t.relid
where t.isleaf
