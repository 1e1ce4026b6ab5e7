-- int_user_facts.inviters.apply: writes the links int_user_facts.inviters.sql found into the facts
-- already written (every run but a rebuild of all history, whose facts take them as they are
-- written), then empties scope_inviters for the next pass of the run.
-- Grain: int_user_facts rows of viral scope users (updated in place). Reads: scope_inviters.
-- The links are read first (materialized), then the facts updated by user, as Citus requires of an
-- update of the distributed facts.
with linked as materialized (
    select * from scope_inviters
)
update int_user_facts f
set inviter_user_id = l.inviter_user_id,
    inviter_network = l.inviter_network,
    inviter_cohort_date = l.inviter_cohort_date,
    inviter_installed_at = l.inviter_installed_at,
    counts_for_kfactor = l.counts_for_kfactor
from linked l
where f.app_id = l.app_id and f.user_id = l.user_id;

truncate scope_inviters;
