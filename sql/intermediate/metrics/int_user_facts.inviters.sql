-- int_user_facts.inviters: links each viral scope user to their inviter: the sender of their
-- invite_id, else their referrer_user_id. The install counts for the inviter's k-factor when the
-- invite was sent within the window W of the inviter's install (or, with only a referrer, when
-- the invitee installed within W days of the inviter). Cycle time is inviter install to invitee
-- install.
-- Grain: one row per (app_id, user_id) of int_user_facts (updated in place). Reads: scope_installs,
-- int_user_facts, raw_invites, compute_settings. After a cohort rebuild compute analyzes
-- int_user_facts first: it was just rewritten, and stale statistics turn the inviter lookup into a
-- nested loop over the table. A fold rewrites a small share of it and skips that.

with settings as (
    select * from compute_settings where app_id = ''
), invitees as (
    select si.app_id, si.user_id, si.installed_at,
           coalesce(v.user_id, si.referrer_user_id) as inviter_user_id,
           v.sent_at
    from scope_installs si
    left join lateral (
        select rv.user_id, rv.sent_at
        from raw_invites rv
        where rv.app_id = si.app_id and rv.invite_id = si.invite_id
        order by rv.sent_at
        limit 1
    ) v on si.invite_id is not null
    where si.referrer_user_id is not null or si.invite_id is not null
)
update int_user_facts f
set inviter_user_id = i.inviter_user_id,
    inviter_network = p.network,
    inviter_cohort_date = p.cohort_date,
    inviter_installed_at = p.installed_at,
    counts_for_kfactor = i.installed_at >= p.installed_at
        and cohort_day_number(coalesce(i.sent_at, i.installed_at), p.installed_at, p.cohort_date,
                              s.time_zone, s.day_rule) between 0 and s.kfactor_window_days - 1
from invitees i
join int_user_facts p on p.app_id = i.app_id and p.user_id = i.inviter_user_id
cross join settings s
where f.app_id = i.app_id and f.user_id = i.user_id and p.user_id <> f.user_id;
