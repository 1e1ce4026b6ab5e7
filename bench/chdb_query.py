#!/usr/bin/env python3
"""The funnel, retention and trends questions of `funnel bench query`, asked of ClickHouse (chdb), timed.

    python3 bench/chdb_query.py EVENTS_CSV [--window-seconds 3600] [--runs 2] [--threads 2] [--as-of DAY]

EVENTS_CSV is the CSV `funnel bench query` generates (event_id, app_id, user_id, event,
occurred_at, properties as JSON text). The events go into a MergeTree table laid out as PostHog
lays out its events (sorted by app, day, event name and hashes of the person and the event id;
properties a JSON string), in a chdb session in a temporary directory.

The funnel: app_opened -> signup_started -> signup_form_submitted -> email_verified ->
onboarding_completed, ordered, a 1-hour window from step 1 (inclusive), broken down by the event
property `platform` with first-touch attribution, without an exclusion (ClickHouse's windowFunnel
has none). windowFunnel keeps, per level, the start of the latest chain that reached it and
advances a level when the next step comes within the window of that start: the rule of funnel's
evaluator with no exclusion (docs/funnels.md), and timestamps are given as microseconds so the
window's end is exact. The breakdown value is the `platform` of the user's earliest step event
that has one.

The retention: first-time cohorts by the UTC day of each user's first app_opened; a member is
back on day k when they have an app_opened on the k-th calendar day after (days 1 and 7). Cohorts
whose day 7 falls after --as-of report d7 as null (not mature), as funnel does.

The trends: app_opened per UTC day, the events (total) and the distinct users (dau).

Prints one JSON document on stdout: chdb's and ClickHouse's versions, threads, load seconds, the
fastest funnel, retention and trends query seconds, rows loaded, bytes of the table on disk, the
funnel's series, the retention's cohorts and the trends' days.
"""

import argparse
import json
import sys
import tempfile
import time

try:
    import chdb
    from chdb import session as chdb_session
except ImportError:
    sys.stderr.write("the chdb module is missing: run `make bench-deps` (a venv in .venv-bench with duckdb and chdb)\n")
    sys.exit(3)

STEPS = ["app_opened", "signup_started", "signup_form_submitted", "email_verified", "onboarding_completed"]


def funnel_sql(window_micros):
    names = ", ".join(f"'{name}'" for name in STEPS)
    conditions = ", ".join(f"event = '{name}'" for name in STEPS)
    counts = ",\n       ".join(f"countIf(level >= {k}) as step{k}" for k in range(1, len(STEPS) + 1))
    return f"""
select platform,
       {counts}
from (
    select user_id,
           windowFunnel({window_micros})(toUInt64(toUnixTimestamp64Micro(occurred_at)), {conditions}) as level,
           argMinIf(JSONExtractString(properties, 'platform'), occurred_at,
                    JSONExtractString(properties, 'platform') != '') as chosen,
           nullIf(chosen, '') as platform
    from events
    where app_id = 'bench' and event in ({names})
    group by user_id
)
where level > 0
group by platform
order by platform asc nulls last
"""


def retention_sql(as_of):
    return f"""
select toUInt32(first_day) as day,
       count() as size,
       countIf(has(days, first_day + 1)) as d1,
       countIf(has(days, first_day + 7)) as d7
from (
    select user_id, groupUniqArray(toDate(occurred_at, 'UTC')) as days, arrayMin(days) as first_day
    from events
    where app_id = 'bench' and event = 'app_opened'
    group by user_id
)
group by first_day
order by first_day
"""


def trends_sql():
    return """
select toUInt32(toDate(occurred_at, 'UTC')) as day, count() as total, uniqExact(user_id) as users
from events
where app_id = 'bench' and event = 'app_opened'
group by day
order by day
"""


def timed(connection, sql, runs, label):
    best = None
    rows = None
    for run in range(runs):
        started = time.perf_counter()
        text = connection.query(sql, "JSONCompact").bytes()
        seconds = time.perf_counter() - started
        sys.stderr.write(f"  ClickHouse: {label} run {run + 1} of {runs}: {seconds:.2f} s\n")
        best = seconds if best is None else min(best, seconds)
        rows = json.loads(text)["data"]
    return best, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--window-seconds", type=int, default=3600)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--as-of", type=int, default=None, help="the last mature day, days since 1970 (default: the last event's day)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="funnel-bench-chdb-") as directory:
        connection = chdb_session.Session(directory)
        connection.query(f"set max_threads = {args.threads}")
        version = json.loads(connection.query("select version()", "JSONCompact").bytes())["data"][0][0]
        connection.query("create database if not exists bench")
        connection.query("use bench")
        connection.query("""
            create table events (
                event_id String, app_id LowCardinality(String), user_id String, event LowCardinality(String),
                occurred_at DateTime64(6, 'UTC'), properties String
            ) engine = MergeTree
            order by (app_id, toDate(occurred_at), event, cityHash64(user_id), cityHash64(event_id))
        """)
        started = time.perf_counter()
        path = args.csv.replace("\\", "\\\\").replace("'", "\\'")
        connection.query(f"""
            insert into events
            select * from file('{path}', 'CSVWithNames',
                'event_id String, app_id String, user_id String, event String, occurred_at DateTime64(6, \\'UTC\\'), properties String')
            settings date_time_input_format = 'best_effort'
        """)
        connection.query("optimize table events final")
        load_seconds = time.perf_counter() - started
        rows, disk_bytes = json.loads(connection.query(
            "select sum(rows), sum(bytes_on_disk) from system.parts where database = 'bench' and table = 'events' and active",
            "JSONCompact").bytes())["data"][0]
        rows, disk_bytes = int(rows), int(disk_bytes)
        sys.stderr.write(f"  ClickHouse: loaded {rows} events in {load_seconds:.2f} s, {disk_bytes / 1e6:.0f} MB on disk\n")
        funnel_seconds, funnel_rows = timed(connection, funnel_sql(args.window_seconds * 1_000_000), args.runs, "funnel")
        as_of = args.as_of
        if as_of is None:
            as_of = int(json.loads(connection.query(
                "select toUInt32(max(toDate(occurred_at, 'UTC'))) from events where app_id = 'bench'", "JSONCompact").bytes())["data"][0][0])
        retention_seconds, retention_rows = timed(connection, retention_sql(as_of), args.runs, "retention")
        trends_seconds, trends_rows = timed(connection, trends_sql(), args.runs, "trends")
        connection.close()
    series = [{"value": row[0], "steps": [int(v) for v in row[1:1 + len(STEPS)]], "excluded": 0} for row in funnel_rows]
    cohorts = [{"day": int(row[0]), "size": int(row[1]), "d1": int(row[2]) if int(row[0]) + 1 <= as_of else None,
                "d7": int(row[3]) if int(row[0]) + 7 <= as_of else None} for row in retention_rows]
    print(json.dumps({"chdb_version": chdb.__version__, "clickhouse_version": version, "threads": args.threads,
                      "load_seconds": load_seconds, "rows_loaded": rows, "bytes_on_disk": disk_bytes,
                      "funnel_seconds": funnel_seconds, "retention_seconds": retention_seconds,
                      "trends_seconds": trends_seconds, "series": series, "cohorts": cohorts,
                      "days": [{"day": int(row[0]), "total": int(row[1]), "users": int(row[2])} for row in trends_rows]}))


if __name__ == "__main__":
    main()
