-- forget_app_files: the ledgers forget the input files whose rows were all the deleted app's, so
-- that ingesting such a file again loads it again: the ingest ledger (with its rejects, by the
-- foreign key), and the files compute and friction had folded. Files that still hold another
-- app's rows stay recorded. Reads and writes: deleted_app_files, compute_files, friction_files,
-- ingest_files. Grain: deletes one ledger row per forgotten file in each ledger.
with forgotten as (
    select file_id from deleted_app_files where not shared
), compute as (
    delete from compute_files where file_id in (select file_id from forgotten)
), friction as (
    delete from friction_files where file_id in (select file_id from forgotten)
)
delete from ingest_files where file_id in (select file_id from forgotten)
