-- retention_bounds: retention cells with more retained users than the cohort, a rate outside
-- 0..1, a rolling value below the classic one, or a day-0 classic rate other than 1.
-- Grain: one row per offending cell. Reads: fct_retention.
select r.app_id, r.mode, r.cohort_date, r.network, r.day
from fct_retention r
left join fct_retention c
  on r.mode = 'rolling' and c.mode = 'classic' and c.app_id = r.app_id
 and c.cohort_date = r.cohort_date and c.network = r.network and c.day = r.day
where r.retained > r.cohort_size or r.retained < 0 or r.rate < 0 or r.rate > 1
   or (r.mode = 'rolling' and r.retained < c.retained)
   or (r.mode = 'classic' and r.day = 0 and r.retained <> r.cohort_size)
