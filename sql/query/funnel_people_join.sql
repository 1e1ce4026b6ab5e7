-- funnel_people_join: a fragment of funnel_events.sql: each user's person properties, joined as
-- p.props. They are built as PostHog builds a person's: the first install's attributes (network,
-- campaign, country, platform) and each key's earliest value under "$set_once" in an event's
-- properties, then overwritten by each key's latest value under "$set" (a later "$set" wins).
-- So a breakdown by a person property uses the user's properties as they stand now, whichever
-- event of the funnel is looked at.
-- Grain: one row per (app, user) with an install or a "$set"/"$set_once" event. Inputs: $1
-- app_id (null: every app).
-- Reads: raw_installs, raw_events.
left join (
    select coalesce(i.app_id, s.app_id) as app_id, coalesce(i.user_id, s.user_id) as user_id,
           coalesce(s.set_once, '{}') || coalesce(i.props, '{}') || coalesce(s.set_now, '{}') as props
    from (
        select distinct on (app_id, user_id) app_id, user_id,
               jsonb_strip_nulls(jsonb_build_object('network', network, 'campaign', campaign,
                                                    'country', country, 'platform', platform)) as props
        from raw_installs
        where ($1::text is null or app_id = $1::text)
        order by app_id, user_id, installed_at, event_id
    ) i
    full join (
        select kv.app_id, kv.user_id,
               jsonb_object_agg(kv.key, kv.value) filter (where kv.kind = '$set_once') as set_once,
               jsonb_object_agg(kv.key, kv.value) filter (where kv.kind = '$set') as set_now
        from (
            -- each key's earliest "$set_once" and latest "$set" value
            select distinct on (x.app_id, x.user_id, k.kind, k.key) x.app_id, x.user_id, k.kind, k.key, k.value
            from raw_events x
            cross join lateral (
                select '$set_once' as kind, o.key, o.value
                from jsonb_each(case when jsonb_typeof(x.properties -> '$set_once') = 'object'
                                     then x.properties -> '$set_once' end) o
                union all
                select '$set', o.key, o.value
                from jsonb_each(case when jsonb_typeof(x.properties -> '$set') = 'object'
                                     then x.properties -> '$set' end) o
            ) k
            where ($1::text is null or x.app_id = $1::text)
              and (x.properties ? '$set' or x.properties ? '$set_once')
            order by x.app_id, x.user_id, k.kind, k.key,
                     case when k.kind = '$set' then -extract(epoch from x.occurred_at)
                          else extract(epoch from x.occurred_at) end,
                     x.event_id desc
        ) kv
        group by kv.app_id, kv.user_id
    ) s on s.app_id = i.app_id and s.user_id = i.user_id
) p on p.app_id = e.app_id and p.user_id = e.user_id
