-- funnel_events: the events one funnel query reads, each tagged with the steps and exclusions
-- (matchers) it satisfies, for the funnel evaluator to walk user by user. Unsorted: the runner
-- groups the rows by user and orders each user's events by time itself; only the few users whose
-- events at one instant differ are read again in order (funnel_tied_users.sql).
-- A template: the query runner fills the matches placeholder (a bit per matcher: the event name
-- and every property filter of that matcher, as parameter placeholders only; 63 bits to a bigint)
-- and the more_matches placeholder (empty, or the further bigint columns matches_2, matches_3, ...
-- of a funnel with more than 63 matchers, each after a comma), the breakdown
-- placeholder (the breakdown value's expression, or null), the names placeholder (the event-name
-- condition; empty for a strict funnel, which reads every event of the user), the people
-- placeholder (funnel_people_join.sql, only for a breakdown by a person property) and the scope
-- placeholder (compute: a join keeping the users of the cohorts being computed, scope_installs)
-- and the interval placeholder (funnel trends: the start of the event's day, week or month, UTC,
-- in microseconds; null otherwise) and the tied placeholder (empty, or funnel_tied_users.sql).
-- Property keys and values are always parameters, never text in the statement.
-- Grain: one row per event of the app in the time range that satisfies a matcher (every event,
-- for strict funnels). Inputs: $1 app_id (null: every app), $2 the earliest time read (microseconds since 1970, or
-- null: from the start), $3 the end of the time range (exclusive, microseconds), further
-- parameters as the fragments use them.
-- Reads: analysis_events, raw_installs (person properties: the user's first install),
-- scope_installs (compute).
select e.app_id,
       e.user_id,
       e.occurred_at,
       {{matches}} as matches,
       {{breakdown}} as breakdown,
       {{interval}} as interval_start{{more_matches}}
from analysis_events e
{{people}}
{{scope}}
where ($1::text is null or e.app_id = $1::text)
  and ($2::bigint is null or e.occurred_at >= to_timestamp($2::bigint / 1000000.0))
  and e.occurred_at < to_timestamp($3::bigint / 1000000.0)
  {{names}}
  {{tied}}
