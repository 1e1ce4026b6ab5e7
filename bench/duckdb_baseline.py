#!/usr/bin/env python3
"""The analyst's alternative to funnel, timed: load every CSV of a generated data set into DuckDB
and run the same metrics over the whole history.

`funnel bench daily` runs this beside its daily incremental run; it can also be run by hand:

    python3 bench/duckdb_baseline.py DIR [--rates JSON] [--database FILE]

DIR holds the CSV files `funnel generate` writes (installs-*.csv, opens-*.csv, ..., late files
included). The queries follow SPEC.md "Metrics" with the default configuration (UTC, calendar
day rule, revenue share 1.0, onboarding step `onboarding_complete`, funnel window 7 days, purchase
window 30 days, regular user = 3 opens on days 1..7, k-factor window 30 days): dedup by event_id,
user facts (first install: cohort date, network, campaign, country, paid/organic/viral), installs
per cohort and network, classic D1/D3/D7/D14/D30 retention per network over mature cohorts,
cumulative LTV per network by day N (revenue in USD at the same rates funnel seeds), CPI per
network and day, k-factor with the viral cycle time, and the default funnel's step counts with
median times. Onboarding friction (the ux telemetry's analysis) is not replicated: the ux files
are loaded, as an analyst would load them, but not analysed.

Prints one JSON document on stdout: load, query and total seconds, row counts, and a few headline
numbers to hold beside funnel's. Progress goes to stderr.
"""

import argparse
import glob
import json
import os
import re
import sys
import time

try:
    import duckdb
except ImportError:
    sys.stderr.write("the duckdb module is missing: run `make bench-deps` (a venv in .venv-bench with duckdb)\n")
    sys.exit(3)

# Column types that are not text; the time field of each kind is read as text and converted
# (the files mix RFC 3339 with offsets and epoch milliseconds, which no single format reads).
KINDS = {
    "installs": ("installed_at", {}),
    "opens": ("opened_at", {"session_seconds": "BIGINT"}),
    "retention": ("reported_at", {"day": "INTEGER"}),
    "purchases": ("purchased_at", {"revenue": "DOUBLE"}),
    "invites": ("sent_at", {}),
    "ad_spend": ("date", {"spend": "DOUBLE", "impressions": "BIGINT", "clicks": "BIGINT"}),
    "steps": ("occurred_at", {}),
    "ux": ("occurred_at", {}),
}
EVENT_KINDS = ["installs", "opens", "retention", "purchases", "invites", "steps"]

RETENTION_DAYS = [1, 3, 7, 14, 30]
REGULAR_OPENS, REGULAR_DAYS = 3, 7
FUNNEL_WINDOW_DAYS, PURCHASE_WINDOW_DAYS = 7, 30
KFACTOR_WINDOW_DAYS = 30
ONBOARDING_STEP = "onboarding_complete"


def default_rates():
    """The rates migration 0003 seeds, read from the source tree beside this script."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sql", "migrations", "0003_currency_rates.sql")
    with open(path, encoding="utf-8") as handle:
        return {code: float(rate) for code, rate in re.findall(r"\('([A-Z]{3})',\s*([0-9.]+)\)", handle.read())}


def files_of(directory, kind):
    """The kind's CSV files, main and late, as `funnel generate` names them."""
    return sorted(path for path in glob.glob(os.path.join(directory, kind + "-*.csv"))
                  if kind != "ad_spend" or os.path.basename(path).startswith("ad_spend-"))


QUERIES = [
    # Events counted once per (app_id, event_id), as funnel's merge does.
    *[(f"dedup {kind}", f"""
        create table {kind} as
        select * from raw_{kind}
        qualify row_number() over (partition by app_id, event_id order by {KINDS[kind][0]}) = 1
    """) for kind in EVENT_KINDS],
    # Restated spend: one row per key, the last in file order (funnel's merge_ad_spend.sql; the
    # generator restates about 4% of the keys).
    ("dedup ad_spend", """
        create table ad_spend as
        select app_id, date, network, coalesce(campaign, '') as campaign, coalesce(country, '') as country,
               arg_max(spend, row_index) as spend, arg_max(coalesce(currency, 'USD'), row_index) as currency,
               arg_max(impressions, row_index) as impressions, arg_max(clicks, row_index) as clicks
        from raw_ad_spend
        group by all
    """),
    ("user facts", """
        create table user_facts as
        select app_id, user_id, installed_at, installed_at::date as cohort_date, network,
               coalesce(campaign, '') as campaign, coalesce(country, '') as country, platform,
               referrer_user_id, invite_id, installs,
               case when referrer_user_id is not null or invite_id is not null then 'viral'
                    when lower(network) = 'organic' then 'organic'
                    else 'paid' end as acquisition
        from (
            select *, count(*) over (partition by app_id, user_id) as installs,
                   row_number() over (partition by app_id, user_id order by installed_at, event_id) as first
            from installs
        )
        where first = 1
    """),
    ("user days", """
        create table user_days as
        with events as (
            select app_id, user_id, 0 as day_n, 0 as opens, true as active, 0.0 as revenue_usd,
                   0 as purchases, 0 as invites, installed_at as event_at
            from user_facts
            union all
            select o.app_id, o.user_id, date_diff('day', f.cohort_date, o.opened_at::date), 1, true, 0.0, 0, 0,
                   o.opened_at
            from opens o join user_facts f on f.app_id = o.app_id and f.user_id = o.user_id
            where o.opened_at >= f.installed_at
            union all
            select r.app_id, r.user_id, r.day, 0, true, 0.0, 0, 0, r.reported_at
            from retention r join user_facts f on f.app_id = r.app_id and f.user_id = r.user_id
            where r.day >= 0
            union all
            select p.app_id, p.user_id, date_diff('day', f.cohort_date, p.purchased_at::date), 0, false,
                   p.revenue * coalesce(cr.usd_per_unit, 0), 1, 0, p.purchased_at
            from purchases p join user_facts f on f.app_id = p.app_id and f.user_id = p.user_id
            left join currency_rates cr on cr.currency = coalesce(p.currency, 'USD')
            where p.purchased_at >= f.installed_at
            union all
            select v.app_id, v.user_id, date_diff('day', f.cohort_date, v.sent_at::date), 0, false, 0.0, 0, 1,
                   v.sent_at
            from invites v join user_facts f on f.app_id = v.app_id and f.user_id = v.user_id
            where v.sent_at >= f.installed_at
        )
        select app_id, user_id, day_n, sum(opens) as opens, bool_or(active) as active,
               sum(revenue_usd) as revenue_usd, sum(purchases) as purchases, sum(invites) as invites,
               max(event_at) as last_event_at
        from events
        where day_n >= 0
        group by all
    """),
    # The last date with data: cohort-days after it are immature.
    ("data through", """
        create table state as
        select greatest((select max(last_event_at) from user_days), (select max(installed_at) from user_facts))::date
               as data_through
    """),
    ("installs per cohort and network", """
        create table cohort_installs as
        select cohort_date, coalesce(network, 'all') as network, count(*) as installs,
               count(*) filter (where acquisition = 'paid') as paid_installs,
               count(*) filter (where acquisition = 'organic') as organic_installs,
               count(*) filter (where acquisition = 'viral') as viral_installs
        from user_facts
        group by grouping sets ((cohort_date, network), (cohort_date))
    """),
    ("retention D1/D3/D7/D14/D30", f"""
        create table retention_summary as
        with active as (
            select f.cohort_date, coalesce(f.network, 'all') as network, d.day_n, count(*) as active_users
            from user_days d join user_facts f on f.app_id = d.app_id and f.user_id = d.user_id
            where d.active and d.day_n in ({", ".join(map(str, RETENTION_DAYS))})
            group by grouping sets ((f.cohort_date, f.network, d.day_n), (f.cohort_date, d.day_n))
        )
        select c.network, n.day, count(*) as cohorts, sum(c.installs) as cohort_size,
               sum(coalesce(a.active_users, 0)) as retained,
               sum(coalesce(a.active_users, 0)) / sum(c.installs) as rate
        from cohort_installs c
        cross join (select unnest({RETENTION_DAYS}) as day) n
        cross join state s
        left join active a on a.cohort_date = c.cohort_date and a.network = c.network and a.day_n = n.day
        where c.cohort_date + n.day <= s.data_through
        group by c.network, n.day
    """),
    ("cumulative LTV by day", """
        create table ltv as
        with revenue as (
            select f.cohort_date, coalesce(f.network, 'all') as network, d.day_n, sum(d.revenue_usd) as revenue_usd
            from user_days d join user_facts f on f.app_id = d.app_id and f.user_id = d.user_id
            where d.revenue_usd > 0
            group by grouping sets ((f.cohort_date, f.network, d.day_n), (f.cohort_date, d.day_n))
        ), spine as (
            select c.cohort_date, c.network, c.installs,
                   unnest(generate_series(0, date_diff('day', c.cohort_date, s.data_through))) as day
            from cohort_installs c cross join state s
        ), cumulative as (
            select sp.*, sum(coalesce(r.revenue_usd, 0)) over (
                       partition by sp.cohort_date, sp.network order by sp.day) as cumulative_usd
            from spine sp
            left join revenue r on r.cohort_date = sp.cohort_date and r.network = sp.network and r.day_n = sp.day
        )
        select network, day, count(*) as cohorts, sum(installs) as installs, sum(cumulative_usd) as revenue,
               sum(cumulative_usd) / sum(installs) as ltv
        from cumulative
        group by network, day
    """),
    ("CPI per network and day", """
        create table cpi as
        with spend as (
            select s.date, s.network, s.campaign, s.country, sum(s.spend * coalesce(cr.usd_per_unit, 0)) as spend_usd,
                   sum(s.impressions) as impressions, sum(s.clicks) as clicks
            from ad_spend s left join currency_rates cr on cr.currency = s.currency
            group by all
        ), installs as (
            select cohort_date as date, network, campaign, country, count(*) as installs,
                   count(*) filter (where acquisition = 'paid') as paid_installs
            from user_facts
            group by all
        ), joined as (
            select coalesce(s.date, i.date) as date, coalesce(s.network, i.network) as network,
                   coalesce(s.spend_usd, 0) as spend, coalesce(i.installs, 0) as installs,
                   coalesce(i.paid_installs, 0) as paid_installs
            from spend s
            full join installs i on i.date = s.date and i.network = s.network and i.campaign = s.campaign
                                and i.country = s.country
        )
        select date, coalesce(network, 'all') as network, sum(spend) as spend, sum(installs) as installs,
               sum(paid_installs) as paid_installs,
               case when sum(spend) > 0 and sum(paid_installs) > 0 then sum(spend) / sum(paid_installs) end as cpi,
               case when sum(spend) > 0 and sum(installs) > 0 then sum(spend) / sum(installs) end as blended_cpi
        from joined
        group by grouping sets ((date, network), (date), (network), ())
    """),
    ("k-factor and cycle time", f"""
        create table kfactor as
        with senders as (
            select app_id, invite_id, arg_min(user_id, sent_at) as user_id, min(sent_at) as sent_at
            from invites group by all
        ), invitees as (
            select f.app_id, f.user_id, f.installed_at, coalesce(s.user_id, f.referrer_user_id) as inviter_user_id,
                   s.sent_at
            from user_facts f
            left join senders s on f.invite_id is not null and s.app_id = f.app_id and s.invite_id = f.invite_id
            where f.acquisition = 'viral'
        ), linked as (
            select i.*, p.network as inviter_network, p.cohort_date as inviter_cohort_date,
                   p.installed_at as inviter_installed_at,
                   i.installed_at >= p.installed_at
                     and date_diff('day', p.cohort_date, coalesce(i.sent_at, i.installed_at)::date)
                         between 0 and {KFACTOR_WINDOW_DAYS - 1} as counts
            from invitees i join user_facts p on p.app_id = i.app_id and p.user_id = i.inviter_user_id
            where p.user_id <> i.user_id
        ), cutoff as (
            select data_through - {KFACTOR_WINDOW_DAYS - 1} as last_cohort_date from state
        ), sent as (
            select app_id, user_id, sum(invites) as invites_sent
            from user_days where day_n < {KFACTOR_WINDOW_DAYS} group by all
        ), inviters as (
            select coalesce(f.network, 'all') as network, count(distinct f.cohort_date) as cohorts,
                   count(*) as cohort_size, sum(coalesce(s.invites_sent, 0)) as invites_sent
            from user_facts f
            left join sent s on s.app_id = f.app_id and s.user_id = f.user_id
            cross join cutoff c
            where f.cohort_date <= c.last_cohort_date
            group by grouping sets ((f.network), ())
        ), viral as (
            select coalesce(l.inviter_network, 'all') as network, count(*) as viral_installs,
                   median(epoch(l.installed_at - l.inviter_installed_at) / 3600.0) as cycle_time_hours
            from linked l cross join cutoff c
            where l.counts and l.inviter_cohort_date <= c.last_cohort_date
            group by grouping sets ((l.inviter_network), ())
        )
        select i.*, coalesce(v.viral_installs, 0) as viral_installs, v.cycle_time_hours,
               case when i.cohort_size > 0 then coalesce(v.viral_installs, 0) / i.cohort_size end as k_factor
        from inviters i left join viral v on v.network = i.network
    """),
    ("funnel: user steps", f"""
        create table user_funnel as
        with open_times as (
            select o.app_id, o.user_id, min(o.opened_at) as first_open_at,
                   list_sort(list(o.opened_at) filter (
                       where date_diff('day', f.cohort_date, o.opened_at::date) between 1 and {REGULAR_DAYS})
                   )[{REGULAR_OPENS}] as regular_at
            from opens o join user_facts f on f.app_id = o.app_id and f.user_id = o.user_id
            where o.opened_at >= f.installed_at
            group by all
        ), with_open as (
            select f.app_id, f.user_id, f.network, f.installed_at, t.regular_at,
                   case when t.first_open_at < f.installed_at + interval {FUNNEL_WINDOW_DAYS} day
                        then t.first_open_at end as open_at
            from user_facts f
            left join open_times t on t.app_id = f.app_id and t.user_id = f.user_id
        ), onboarded as (
            select w.app_id, w.user_id, min(s.occurred_at) as onboarded_at
            from with_open w
            join steps s on s.app_id = w.app_id and s.user_id = w.user_id
            where s.step = '{ONBOARDING_STEP}' and s.occurred_at >= w.open_at
              and s.occurred_at < w.installed_at + interval {FUNNEL_WINDOW_DAYS} day
            group by all
        ), with_regular as (
            select w.*, o.onboarded_at,
                   case when o.onboarded_at is not null and w.regular_at is not null
                        then greatest(w.regular_at, o.onboarded_at) end as regular_user_at
            from with_open w
            left join onboarded o on o.app_id = w.app_id and o.user_id = w.user_id
        ), purchased as (
            select w.app_id, w.user_id, min(p.purchased_at) as purchase_at
            from with_regular w
            join purchases p on p.app_id = w.app_id and p.user_id = w.user_id
            where p.purchased_at >= w.regular_user_at
              and p.purchased_at < w.installed_at + interval {PURCHASE_WINDOW_DAYS} day
            group by all
        )
        select w.*, p.purchase_at
        from with_regular w
        left join purchased p on p.app_id = w.app_id and p.user_id = w.user_id
    """),
    ("funnel: step counts and median times", """
        create table funnel as
        select coalesce(network, 'all') as network,
               count(*) as installs, count(open_at) as first_open, count(onboarded_at) as onboarding_complete,
               count(regular_user_at) as regular_user, count(purchase_at) as first_purchase,
               median(epoch(open_at - installed_at)) as median_seconds_to_open,
               median(epoch(onboarded_at - open_at)) as median_seconds_to_onboarding,
               median(epoch(regular_user_at - onboarded_at)) as median_seconds_to_regular,
               median(epoch(purchase_at - regular_user_at)) as median_seconds_to_purchase
        from user_funnel
        group by grouping sets ((network), ())
    """),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="directory of the generated CSV files")
    parser.add_argument("--rates", help="currency rates as JSON {\"EUR\": 1.08, ...} (default: migration 0003's)")
    parser.add_argument("--database", default=":memory:", help="DuckDB database file (default: in memory)")
    arguments = parser.parse_args()
    rates = json.loads(arguments.rates) if arguments.rates else default_rates()

    started = time.perf_counter()
    connection = duckdb.connect(arguments.database)
    connection.execute("set TimeZone = 'UTC'")
    connection.execute("""
        create macro utc_timestamp(t) as
        case when regexp_full_match(t, '[0-9]{1,15}') then make_timestamp(t::bigint * 1000)
             else (t::timestamptz)::timestamp end
    """)
    connection.execute("create table currency_rates (currency varchar primary key, usd_per_unit double)")
    connection.executemany("insert into currency_rates values (?, ?)", sorted(rates.items()))

    rows = {}
    for kind, (time_field, types) in KINDS.items():
        files = files_of(arguments.directory, kind)
        if not files:
            sys.stderr.write(f"duckdb: no {kind} files in {arguments.directory}\n")
            sys.exit(2)
        column_types = dict(types, **{time_field: "VARCHAR"})
        converted = f"{time_field}::date" if kind == "ad_spend" else f"utc_timestamp({time_field})"
        # Spend rows keep their place in the files (sorted by name, each in row order): the last
        # row for a key is the one that counts.
        row_index = ", row_number() over () as row_index" if kind == "ad_spend" else ""
        connection.execute(f"""
            create table raw_{kind} as
            select * replace ({converted} as {time_field}){row_index}
            from read_csv({files!r}, header = true, types = {column_types!r})
        """)
        rows[kind] = connection.execute(f"select count(*) from raw_{kind}").fetchone()[0]
        sys.stderr.write(f"duckdb: loaded {kind}: {rows[kind]} rows\n")
    loaded = time.perf_counter()

    query_seconds = {}
    for name, sql in QUERIES:
        begun = time.perf_counter()
        connection.execute(sql)
        query_seconds[name] = round(time.perf_counter() - begun, 4)
    finished = time.perf_counter()

    def one(sql):
        row = connection.execute(sql).fetchone()
        return row[0] if row else None

    result_rows = {table: one(f"select count(*) from {table}")
                   for table in ["user_facts", "user_days", "cohort_installs", "retention_summary", "ltv", "cpi", "kfactor", "funnel"]}
    headline = {
        "users": one("select count(*) from user_facts"),
        "d1_retention_all": one("select rate from retention_summary where network = 'all' and day = 1"),
        "d7_retention_all": one("select rate from retention_summary where network = 'all' and day = 7"),
        "ltv_d7_all": one("select ltv from ltv where network = 'all' and day = 7"),
        "cpi_all": one("select cpi from cpi where date is null and network = 'all'"),
        "k_factor_all": one("select k_factor from kfactor where network = 'all'"),
        "first_purchase_all": one("select first_purchase from funnel where network = 'all'"),
    }
    print(json.dumps({
        "duckdb_version": duckdb.__version__,
        "threads": one("select current_setting('threads')"),
        "files": sum(len(files_of(arguments.directory, kind)) for kind in KINDS),
        "load_seconds": round(loaded - started, 3),
        "query_seconds": round(finished - loaded, 3),
        "total_seconds": round(finished - started, 3),
        "rows_loaded": sum(rows.values()),
        "rows_by_kind": rows,
        "result_rows": result_rows,
        "seconds_by_query": query_seconds,
        "headline": headline,
    }, indent=2))


if __name__ == "__main__":
    main()
