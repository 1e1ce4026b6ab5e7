-- status_files: the ingested files per kind and state, with the last one of each (its path,
-- when it finished and why it was refused), and how many loaded files no compute has folded in
-- yet. Grain: one row per (kind, status). Reads: ingest_files, compute_files.
select coalesce(f.kind, 'mixed') as kind, f.status, count(*)::bigint as files,
       coalesce(sum(f.rows_loaded), 0)::bigint as rows_loaded,
       (array_agg(f.path order by coalesce(f.finished_at, f.enqueued_at) desc, f.file_id desc))[1] as last_path,
       to_char(max(coalesce(f.finished_at, f.enqueued_at)) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as last_at,
       (array_agg(f.message order by coalesce(f.finished_at, f.enqueued_at) desc, f.file_id desc))[1] as last_message,
       count(*) filter (where f.status = 'loaded'
                          and not exists (select 1 from compute_files c where c.file_id = f.file_id))::bigint as not_computed
from ingest_files f
group by coalesce(f.kind, 'mixed'), f.status
order by kind, f.status;
