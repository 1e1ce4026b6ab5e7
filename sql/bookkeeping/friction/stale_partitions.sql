-- stale_partitions: the partitions of the raw tables the friction fold reads whose statistics are
-- missing or far behind (never analyzed, or more rows changed since than they held then), as a
-- fresh bulk load leaves them until autovacuum comes by. Planned on such statistics the fold's
-- joins ran as nested loops for minutes; the fold analyzes these first.
-- Grain: one row per partition name. Reads: pg_inherits, pg_class, pg_stat_user_tables.
select c.relname::text
from pg_inherits i
join pg_class c on c.oid = i.inhrelid
left join pg_stat_user_tables s on s.relid = c.oid
where i.inhparent in ('raw_ux'::regclass, 'raw_steps'::regclass, 'raw_installs'::regclass, 'raw_opens'::regclass)
  and (c.reltuples < 0 or coalesce(s.n_mod_since_analyze, 0) > greatest(c.reltuples, 0) / 2 + 1000)
order by 1
