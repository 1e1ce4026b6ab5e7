-- delta_users: the computed users the window's rows touch whose cohort is not being rebuilt
-- (their install did not change); their rows are folded in without rereading their history.
-- Rows of users without facts wait for their install (the cohort rebuild then reads them).
-- Grain: one row per (app_id, user_id). Reads: compute_window, raw_opens, raw_retention,
-- raw_purchases, raw_invites, raw_steps, int_user_facts, compute_scope. Rows are found between
-- the lowest and highest file_id of the window (index on file_id).
with window_users as (
    select distinct app_id, user_id
    from (
        select app_id, user_id from raw_opens
        where file_id between (select min(file_id) from compute_window)
                  and (select max(file_id) from compute_window)
          and file_id in (select file_id from compute_window)
        union all
        select app_id, user_id from raw_retention
        where file_id between (select min(file_id) from compute_window)
                  and (select max(file_id) from compute_window)
          and file_id in (select file_id from compute_window)
        union all
        select app_id, user_id from raw_purchases
        where file_id between (select min(file_id) from compute_window)
                  and (select max(file_id) from compute_window)
          and file_id in (select file_id from compute_window)
        union all
        select app_id, user_id from raw_invites
        where file_id between (select min(file_id) from compute_window)
                  and (select max(file_id) from compute_window)
          and file_id in (select file_id from compute_window)
        union all
        select app_id, user_id from raw_steps
        where file_id between (select min(file_id) from compute_window)
                  and (select max(file_id) from compute_window)
          and file_id in (select file_id from compute_window)
    ) w
)
insert into delta_users (app_id, user_id)
select w.app_id, w.user_id
from window_users w
-- probed per user (offset 0 keeps the planner from scanning every user's facts)
cross join lateral (
    select f.cohort_date from int_user_facts f where f.app_id = w.app_id and f.user_id = w.user_id offset 0
) f
where not exists (
    select 1 from compute_scope sc where sc.app_id = w.app_id and sc.cohort_date = f.cohort_date)
on conflict do nothing
