-- int_funnel_events: the tracked events of the scope users that user-defined funnels read:
-- installs (reinstalls too), opens, purchases, invites and onboarding steps (by step name).
-- $1 lists the event names the funnels use; $2 = true asks for every event (strict funnels
-- need them all, since any other event breaks a strict sequence).
-- Grain: one row per event. Reads: scope_installs, raw_installs, raw_opens, raw_purchases,
-- raw_invites, raw_steps. Parameters: $1 text[] event names, $2 boolean all events.
select e.app_id, e.user_id, e.name, extract(epoch from e.at)::double precision as at
from (
    select i.app_id, i.user_id, 'install' as name, i.installed_at as at, 0 as kind_order
    from raw_installs i join scope_installs si on si.app_id = i.app_id and si.user_id = i.user_id
    where $2 or 'install' = any($1::text[])
    union all
    select o.app_id, o.user_id, 'open', o.opened_at, 1
    from raw_opens o join scope_installs si on si.app_id = o.app_id and si.user_id = o.user_id
    where ($2 or 'open' = any($1::text[])) and o.opened_at >= si.installed_at - interval '1 day'
    union all
    select p.app_id, p.user_id, 'purchase', p.purchased_at, 2
    from raw_purchases p join scope_installs si on si.app_id = p.app_id and si.user_id = p.user_id
    where ($2 or 'purchase' = any($1::text[])) and p.purchased_at >= si.installed_at - interval '1 day'
    union all
    select v.app_id, v.user_id, 'invite', v.sent_at, 3
    from raw_invites v join scope_installs si on si.app_id = v.app_id and si.user_id = v.user_id
    where ($2 or 'invite' = any($1::text[])) and v.sent_at >= si.installed_at - interval '1 day'
    union all
    select s.app_id, s.user_id, s.step, s.occurred_at, 4
    from raw_steps s join scope_installs si on si.app_id = s.app_id and si.user_id = s.user_id
    where ($2 or s.step = any($1::text[])) and s.occurred_at >= si.installed_at - interval '1 day'
) e
order by e.app_id, e.user_id, e.at, e.kind_order
