-- earliest_dirty_day: the day before the earliest cohort day new data touched (within the
-- optional --from/--to range), where the friction step starts looking at telemetry again.
-- Grain: one value (null when nothing is dirty). Reads: dirty_cohort_days.
select (min(cohort_date) - 1)::date
from dirty_cohort_days
where ($1::date is null or cohort_date >= $1)
  and ($2::date is null or cohort_date <= $2)
