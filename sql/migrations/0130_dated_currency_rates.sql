-- 0130_dated_currency_rates: exchange rates by date, loaded as the currency_rates input kind, and
-- the money compute could not convert. The rate of a date is the currency's latest loaded rate on
-- or before it; before a currency's first loaded rate, its rate in currency_rates (migration 0003,
-- the fixed reference rates and an operator's own), which so holds as of 1970-01-01. Money in a
-- currency with neither counts in no metric, and is listed in money_unconverted instead.
-- raw_currency_rates: one row per (currency, rate_date), the loaded rates (a later row for the
-- same key replaces the earlier, as ad spend restates; merge_currency_rates.sql). Not partitioned:
-- a history of daily rates since 1999 is a few hundred thousand rows.
-- currency_rate_days: one row per (currency, day) from a currency's first loaded rate to its last,
-- each day carrying the latest rate on or before it, so that compute looks a purchase's rate up by
-- equality (a hash join) rather than by a range against thousands of daily rates.
-- currency_rate_spans: one row per currency with any rate: its first and last loaded days (null
-- when none is loaded), the rate before the first (currency_rates', or null) and the rate from the
-- last on (the last loaded rate, else currency_rates').
-- currency_rates_built: one row, the fingerprint of the rates the two tables above were built
-- from (currency_rates_fingerprint()); compute rebuilds them when it differs
-- (intermediate/metrics/currency_rate_days.sql).
-- money_unconverted: one row per (app_id, source, currency, day) with purchases or counted ad spend
-- in a currency without a rate on that day (UTC date of purchased_at; the spend date): the rows and
-- their amount in the currency, for compute's warning, funnel status and the reports.
-- Reads: currency_rates.

create table raw_currency_rates (
    rate_date    date           not null,
    currency     text           not null check (currency ~ '^[A-Z]{3}$'),
    usd_per_unit numeric(20,10) not null check (usd_per_unit > 0),
    file_id      bigint         not null,
    primary key (currency, rate_date)
);

create table currency_rate_days (
    currency     text           not null,
    day          date           not null,
    usd_per_unit numeric(20,10) not null,
    primary key (currency, day)
);

create table currency_rate_spans (
    currency   text primary key,
    first_day  date,
    last_day   date,
    before_usd numeric(20,10),
    after_usd  numeric(20,10)
);

create table currency_rates_built (
    singleton   boolean primary key default true check (singleton),
    fingerprint text    not null
);

create table money_unconverted (
    app_id   text    not null,
    source   text    not null check (source in ('purchases', 'ad_spend')),
    currency text    not null,
    day      date    not null,
    rows     bigint  not null,
    amount   numeric not null,
    primary key (app_id, source, currency, day)
);

-- What the built rate tables depend on: the loaded rates (a replaced row takes the later file's
-- id, a removed one lowers the count) and every rate of currency_rates.
create function currency_rates_fingerprint() returns text
language sql stable as $$
    select concat_ws('/',
        (select concat_ws(':', count(*), max(file_id), sum(usd_per_unit)) from raw_currency_rates),
        (select md5(coalesce(string_agg(currency || '=' || usd_per_unit::text, ',' order by currency), ''))
         from currency_rates))
$$;

-- Nothing is loaded yet: the spans are currency_rates' rates for every date, as before.
insert into currency_rate_spans (currency, first_day, last_day, before_usd, after_usd)
select currency, null, null, usd_per_unit, usd_per_unit from currency_rates;

insert into currency_rates_built (fingerprint) values (currency_rates_fingerprint());
