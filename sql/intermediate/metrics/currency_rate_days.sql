-- currency_rate_days: rebuilds currency_rate_days and currency_rate_spans from the loaded rates
-- (raw_currency_rates) and the undated ones (currency_rates, which hold before a currency's first
-- loaded rate, as of 1970-01-01), and lists in rate_changes, per currency, the first date whose
-- rate differs from the one the tables held before: compute redoes what was converted on or after
-- it. Run when currency_rates_fingerprint() differs from currency_rates_built.
-- A rate is constant between the dates where either build's rate can change (a currency's loaded
-- days, the day after its last, and 1970-01-01), so comparing the two builds on those dates finds
-- the first change.
-- Grain: currency_rate_days one row per (currency, day) from a currency's first loaded rate to its
-- last; currency_rate_spans one row per currency with any rate; rate_changes one row per currency
-- whose rates changed. Reads: raw_currency_rates, currency_rates, currency_rate_days,
-- currency_rate_spans.
create temp table new_rate_spans on commit drop as
select coalesce(l.currency, c.currency) as currency, l.first_day, l.last_day,
       c.usd_per_unit as before_usd, coalesce(l.last_usd, c.usd_per_unit) as after_usd
from (
    select currency, min(rate_date) as first_day, max(rate_date) as last_day,
           (array_agg(usd_per_unit order by rate_date desc))[1] as last_usd
    from raw_currency_rates group by currency
) l
full join currency_rates c on c.currency = l.currency;

-- each loaded rate fills the days up to the currency's next one
create temp table new_rate_days on commit drop as
select r.currency, d.day::date as day, r.usd_per_unit
from (
    select currency, rate_date, usd_per_unit,
           lead(rate_date) over (partition by currency order by rate_date) as next_date
    from raw_currency_rates
) r
cross join lateral generate_series(r.rate_date, coalesce(r.next_date - 1, r.rate_date), interval '1 day') as d (day);

insert into rate_changes (currency, changed_from)
with candidates as (
    select currency, day from currency_rate_days
    union select currency, day from new_rate_days
    union select currency, last_day + 1 from currency_rate_spans where last_day is not null
    union select currency, last_day + 1 from new_rate_spans where last_day is not null
    union select currency, date '1970-01-01' from currency_rate_spans
    union select currency, date '1970-01-01' from new_rate_spans
), compared as (
    select c.currency, c.day,
           coalesce(od.usd_per_unit, case when c.day < os.first_day then os.before_usd else os.after_usd end) as before_rate,
           coalesce(nd.usd_per_unit, case when c.day < ns.first_day then ns.before_usd else ns.after_usd end) as after_rate
    from candidates c
    left join currency_rate_days od on od.currency = c.currency and od.day = c.day
    left join currency_rate_spans os on os.currency = c.currency
    left join new_rate_days nd on nd.currency = c.currency and nd.day = c.day
    left join new_rate_spans ns on ns.currency = c.currency
)
select currency, min(day) as changed_from
from compared
where before_rate is distinct from after_rate
group by currency;

delete from currency_rate_days;
insert into currency_rate_days (currency, day, usd_per_unit) select currency, day, usd_per_unit from new_rate_days;
delete from currency_rate_spans;
insert into currency_rate_spans (currency, first_day, last_day, before_usd, after_usd)
select currency, first_day, last_day, before_usd, after_usd from new_rate_spans;

insert into currency_rates_built (singleton, fingerprint) values (true, currency_rates_fingerprint())
on conflict (singleton) do update set fingerprint = excluded.fingerprint;
