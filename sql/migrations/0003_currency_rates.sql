-- 0003_currency_rates: reference exchange rates that turn purchase revenue and ad spend into USD.
-- Grain: one row per ISO 4217 currency. Reads: nothing. Seeded with fixed reference rates (the
-- generator plants purchases with the same rates, see FunnelCore.ReferenceRates); operators
-- update rows to their own finance rates, and compute reads whatever is here.

create table currency_rates (
    currency     text          primary key check (currency ~ '^[A-Z]{3}$'),
    usd_per_unit numeric(20,10) not null check (usd_per_unit > 0),
    updated_at   timestamptz   not null default now()
);

insert into currency_rates (currency, usd_per_unit) values
    ('USD', 1.0),
    ('EUR', 1.08),
    ('GBP', 1.27),
    ('JPY', 0.0067),
    ('CNY', 0.138),
    ('KRW', 0.00075),
    ('BRL', 0.20),
    ('INR', 0.012),
    ('CAD', 0.74),
    ('AUD', 0.66);
