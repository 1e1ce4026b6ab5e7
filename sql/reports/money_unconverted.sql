-- money_unconverted: the money compute could not convert to USD, per app, source and currency:
-- rows, their amount in the currency and the dates they span (docs/inputs.md, "Money and
-- currencies"), for compute's warning, funnel status and the reports.
-- Grain: one row per (app_id, source, currency). Reads: money_unconverted. Parameters: $1 app_id
-- (null: every app).
select source, app_id, currency, sum(rows)::text as rows, sum(amount)::text as amount,
       min(day)::text as first_date, max(day)::text as last_date
from money_unconverted
where $1::text is null or app_id = $1::text
group by source, app_id, currency
order by app_id, source, currency
