-- funnel_person_property_check: whether a person property key exists for an app: an install
-- attribute (network, campaign, country, platform) or a key some event sets under "$set" or
-- "$set_once", so a breakdown by an unknown person property is refused before the query runs.
-- Grain: one row. Inputs: $1 app_id, $2 the property key. Reads: raw_events.
select $2::text in ('network', 'campaign', 'country', 'platform')
    or exists (
        select 1 from raw_events x
        where x.app_id = $1
          and (x.properties -> '$set' ? $2::text or x.properties -> '$set_once' ? $2::text)
    ) as known
