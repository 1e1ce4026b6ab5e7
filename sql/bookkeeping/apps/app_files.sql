-- app_files: the input files an app's deleted rows came from, and whether other rows (another
-- app's) still come from each, for `funnel apps delete`. Reads: deleted_app_files (a temporary
-- table the deletion fills), ingest_files. Grain: one row per file, in file_id order.
select d.file_id, f.path, d.shared
from deleted_app_files d
left join ingest_files f using (file_id)
order by d.file_id
