-- fold_files: records the window's files as folded in; they commit with the derived rows.
-- Grain: one row per file_id. Reads: compute_window.
insert into compute_files (file_id)
select file_id from compute_window
on conflict do nothing
