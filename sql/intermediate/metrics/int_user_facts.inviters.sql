-- int_user_facts.inviters: links each viral scope user to their inviter: the sender of their
-- invite_id, else their referrer_user_id. The install counts for the inviter's k-factor when the
-- invite was sent within the window W of the inviter's install (or, with only a referrer, when
-- the invitee installed within W days of the inviter). Cycle time is inviter install to invitee
-- install.
-- A template: the engine fills {{inviters}} with where the inviters' attribution is read, a fixed
-- name in code, never input. A rebuild of all history reads scope_installs, which holds every
-- user, before the facts are written, so int_user_facts.sql writes each link with its row
-- (updating 56k written facts afterwards took 1.9 s at 300k users). Any other run reads
-- int_user_facts after writing the scope's facts, since an inviter may lie outside the scope, and
-- int_user_facts.inviters.apply.sql updates the facts.
-- Grain: one row per viral scope user with an inviter, into scope_inviters. Reads: scope_installs,
-- {{inviters}}, raw_invites, compute_settings. After a cohort rebuild compute analyzes
-- int_user_facts first: it was just rewritten, and stale statistics turn the inviter lookup into a
-- nested loop over the table. A fold rewrites a small share of it and skips that.
-- The invitees are gathered first (materialized), then joined to their inviters by user: on Citus
-- the inviter's facts lie on another shard than the invitee's, and a statement that probes the
-- invites laterally is refused. The first invite sent wins (by sent_at). The k-factor test is
-- computed here too (Citus refuses a stable function of columns in an update's set list).

with settings as (
    select * from compute_settings where app_id = ''
), sent as materialized (
    -- the invites the scope's invitees name (by invite_id: the sender's row is on the sender's shard)
    select rv.app_id, rv.invite_id, rv.user_id, rv.sent_at
    from raw_invites rv
    join scope_installs si on si.app_id = rv.app_id and si.invite_id = rv.invite_id
), invitees as materialized (
    select distinct on (si.app_id, si.user_id)
           si.app_id, si.user_id, si.installed_at,
           coalesce(v.user_id, si.referrer_user_id) as inviter_user_id,
           v.sent_at
    from scope_installs si
    left join sent v on v.app_id = si.app_id and v.invite_id = si.invite_id
    where si.referrer_user_id is not null or si.invite_id is not null
    order by si.app_id, si.user_id, v.sent_at
), linked as materialized (
    -- each invitee with their inviter's attribution, found by the inviter's user_id
    select i.app_id, i.user_id, i.inviter_user_id,
           p.network, p.cohort_date, p.installed_at as inviter_installed_at,
           i.installed_at >= p.installed_at
               and cohort_day_number(coalesce(i.sent_at, i.installed_at), p.installed_at, p.cohort_date,
                                     s.time_zone, s.day_rule) between 0 and s.kfactor_window_days - 1
               as counts_for_kfactor
    from invitees i
    join {{inviters}} p on p.app_id = i.app_id and p.user_id = i.inviter_user_id
    cross join settings s
    where p.user_id <> i.user_id
)
insert into scope_inviters (app_id, user_id, inviter_user_id, inviter_network, inviter_cohort_date,
                            inviter_installed_at, counts_for_kfactor)
select app_id, user_id, inviter_user_id, network, cohort_date, inviter_installed_at, counts_for_kfactor
from linked;
