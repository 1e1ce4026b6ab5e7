-- 0052_kfactor_invitees_index: the viral installs that count for the k-factor, by app and inviter
-- cohort date, with what fct_kfactor.sql reads of them (inviter network, both install times), so
-- the daily k-factor reads the viral users instead of every user's facts. At a year of history
-- (578k users, 87k viral installs counted) fct_kfactor took 0.34 s a day, 0.26 s through this
-- index (whose entries still visit the heap on the pages the day's fold updated). The fold's
-- updates leave these columns alone, so they stay HOT.
-- Grain: one entry per user with counts_for_kfactor. Reads: int_user_facts.
create index int_user_facts_kfactor on int_user_facts (app_id, inviter_cohort_date)
    include (inviter_network, installed_at, inviter_installed_at)
    where counts_for_kfactor;
