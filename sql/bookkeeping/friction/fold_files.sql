-- fold_files: records the window's files as taken into the friction tables; commits with them.
-- Grain: one row per file_id. Reads: friction_window.
insert into friction_files (file_id)
select file_id from friction_window
on conflict do nothing
