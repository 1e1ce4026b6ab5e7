-- telemetry_folded: records telemetry (`ux`) files that `funnel run` loaded beside the metrics
-- compute as folded in, once friction has read them. The metrics read no telemetry, so there is
-- nothing to fold; left out of compute_files they would sit in the next run's window, and a run
-- with nothing new would compute again for them.
-- Grain: one compute_files row per file. Reads: ingest_files, friction_files. $1 = the file ids
-- (bigint[]) the run loaded.
insert into compute_files (file_id)
select f.file_id
from ingest_files f
join friction_files r on r.file_id = f.file_id
where f.file_id = any($1::bigint[])
  and f.status = 'loaded'
  and f.kind = 'ux'
on conflict do nothing
