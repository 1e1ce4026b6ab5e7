-- funnel_people_join: a fragment of funnel_events.sql: each user's person properties, those of
-- their first install (network, campaign, country, platform), joined as p.props.
-- Grain: one row per user with an install. Inputs: $1 app_id. Reads: raw_installs.
left join (
    select distinct on (user_id) user_id,
           jsonb_strip_nulls(jsonb_build_object('network', network, 'campaign', campaign,
                                                'country', country, 'platform', platform)) as props
    from raw_installs
    where app_id = $1
    order by user_id, installed_at, event_id
) p on p.user_id = e.user_id
