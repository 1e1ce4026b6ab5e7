-- merge_currency_rates: upserts one file's staged exchange rates into raw_currency_rates; a
-- replaced rate takes the new file's file_id. Compute finds what changed by comparing the rates
-- with those it last built from (intermediate/metrics/currency_rate_days.sql).
-- Grain: one raw row per (currency, rate_date). Inputs: stage_currency_rates (the file's valid
-- rows in file order), raw_currency_rates, $1 = file_id. Writes raw_currency_rates. Returns the
-- number of rows inserted or replaced. The caller holds this kind's merge lock.
--
-- As ad spend restates: within the file the last row for a key wins (highest ctid = last in COPY
-- order); across files the later file (higher file_id) wins, whatever order workers commit them
-- in. A row that loses to a later file counts as a duplicate, not stored.
with staged as (
    select distinct on (currency, rate_date) rate_date, currency, usd_per_unit
    from stage_currency_rates
    order by currency, rate_date, ctid desc
),
upserted as (
    insert into raw_currency_rates (rate_date, currency, usd_per_unit, file_id)
    select rate_date, currency, usd_per_unit, $1::bigint
    from staged
    on conflict (currency, rate_date) do update
        set usd_per_unit = excluded.usd_per_unit,
            file_id = excluded.file_id
        where raw_currency_rates.file_id <= excluded.file_id
    returning 1
)
select count(*)::bigint as rows_loaded from upserted;
