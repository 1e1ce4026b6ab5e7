#!/usr/bin/env python3
"""The same ordered funnel as `funnel bench query` asks funnel, computed by DuckDB, timed.

    python3 bench/duckdb_funnel.py EVENTS_CSV [--window-seconds 3600] [--runs 2]

EVENTS_CSV is the CSV `funnel bench query` generates (event_id, app_id, user_id, event,
occurred_at, properties as JSON text). The funnel: app_opened -> signup_started ->
signup_form_submitted -> email_verified -> onboarding_completed, ordered, a 1-hour window from
step 1 (inclusive), app_uninstalled excluded between steps 1 and 5, broken down by the event
property `platform` with first-touch attribution.

The semantics are funnel's (docs/funnels.md, EventFunnelEvaluator.swift), which are PostHog's
funnel UDF: each user's step and exclusion events in time order are folded (DuckDB's list_reduce)
through the same state as the evaluator keeps: for each step the start of the latest attempt that
reached it and whether an exclusion voided it, and the counted attempt (furthest; a later one
replaces it only by getting further, or as far when it is voided). Every step-1 event starts an
attempt; a step-k event advances the attempt at step k - 1 when it is within the window of that
attempt's start and the attempt has not reached step k; an exclusion inside the window of an
attempt at step k (1 to 4) that has not reached step k + 1 voids it, and voids the counted
attempt when that one is at step k and the exclusion is within its window. A user whose counted
attempt is voided counts under "excluded" only. The breakdown value is the `platform` of the
user's earliest step or exclusion event that has one (null: none). The generator never gives two
events of one user the same timestamp, so the tie rules of funnels do not apply here.

Then the trends: app_opened per UTC day, the events (total) and the distinct users (dau).

Prints one JSON document on stdout: DuckDB's version and threads, load seconds, the fastest query
seconds, the rows loaded and per breakdown value the users at each step and the excluded users;
the fastest trends seconds and per day the events and users.
"""

import argparse
import json
import sys
import time

try:
    import duckdb
except ImportError:
    sys.stderr.write("the duckdb module is missing: run `make bench-deps` (a venv in .venv-bench with duckdb)\n")
    sys.exit(3)

STEPS = ["app_opened", "signup_started", "signup_form_submitted", "email_verified", "onboarding_completed"]
EXCLUSION = "app_uninstalled"


def fold(step_count, window):
    """The lambda body of the fold: the new state from `acc` and the event `x` (x.k: the step,
    1-based, or -1 for the exclusion; x.t: microseconds)."""
    w = str(window)
    fields = {}
    # Step events: the attempt at step k - 1 (for step 1, a new one starting now) advances.
    def prev(k):
        return ("x.t", "false") if k == 1 else (f"acc.s{k - 1}", f"acc.x{k - 1}")

    def advances(k):
        start, _ = prev(k)
        return (f"(x.k = {k} and {start} is not null and x.t - {start} <= {w} "
                f"and (acc.s{k} is null or acc.s{k} <> {start}))")

    for k in range(1, step_count + 1):
        start, excluded = prev(k)
        fields[f"s{k}"] = f"case when {advances(k)} and not {excluded} then {start} else acc.s{k} end"
    # Exclusions: the attempt at step j (that has not reached j + 1) inside its window is voided.
    def voids(j):
        return (f"(x.k = -1 and acc.s{j} is not null and x.t - acc.s{j} <= {w} "
                f"and (acc.s{j + 1} is null or acc.s{j + 1} <> acc.s{j}) and not acc.x{j})")

    for j in range(1, step_count + 1):
        if j == step_count:
            fields[f"x{j}"] = "false"
            continue
        start, excluded = prev(j)
        fields[f"x{j}"] = (f"case when {advances(j)} and not {excluded} then false "
                           f"when {voids(j)} then true else acc.x{j} end")
    # The counted attempt.
    replaces = " or ".join(f"({advances(k)} and ({k} > acc.ms or ({k} = acc.ms and acc.mx)))" for k in range(1, step_count + 1))
    fields["ms"] = f"case when {replaces} then x.k else acc.ms end"
    fields["mst"] = "case " + " ".join(
        f"when {advances(k)} and ({k} > acc.ms or ({k} = acc.ms and acc.mx)) then {prev(k)[0]}" for k in range(1, step_count + 1)
    ) + " else acc.mst end"
    voided = " or ".join(f"({voids(j)} and acc.ms = {j} and x.t - acc.mst <= {w})" for j in range(1, step_count))
    fields["mx"] = "case " + " ".join(
        f"when {advances(k)} and ({k} > acc.ms or ({k} = acc.ms and acc.mx)) then {prev(k)[1]}" for k in range(1, step_count + 1)
    ) + f" else acc.mx or ({voided}) end"
    return "struct_pack(" + ", ".join(f"{name} := {expr}" for name, expr in fields.items()) + ")"


def initial(step_count):
    parts = [f"s{k} := null::bigint" for k in range(1, step_count + 1)]
    parts += [f"x{k} := false" for k in range(1, step_count + 1)]
    parts += ["ms := 0", "mst := null::bigint", "mx := false"]
    return "struct_pack(" + ", ".join(parts) + ")"


def query(window_micros):
    n = len(STEPS)
    cases = " ".join(f"when '{name}' then {k}" for k, name in enumerate(STEPS, 1))
    names = ", ".join(f"'{name}'" for name in STEPS + [EXCLUSION])
    counts = ",\n       ".join(f"count(*) filter (where not s.mx and s.ms >= {k}) as step{k}" for k in range(1, n + 1))
    return f"""
with matched as (
    select user_id, epoch_us(occurred_at) as t,
           case event {cases} else -1 end as k,
           nullif(properties ->> 'platform', '') as platform
    from events
    where event in ({names})
),
users as (
    select user_id,
           list(struct_pack(t := t, k := k) order by t) as evs,
           arg_min(platform, t) filter (where platform is not null) as platform,
           bool_or(k = 1) as has_first
    from matched
    group by user_id
),
states as (
    select platform,
           list_reduce(evs, lambda acc, x: {fold(n, window_micros)}, {initial(n)}) as s
    from users
    where has_first
)
select platform,
       {counts},
       count(*) filter (where s.mx) as excluded
from states
where s.ms > 0
group by platform
order by platform nulls last
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--window-seconds", type=int, default=3600)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--print-sql", action="store_true")
    args = parser.parse_args()
    sql = query(args.window_seconds * 1_000_000)
    if args.print_sql:
        print(sql)
        return
    connection = duckdb.connect()
    threads = connection.execute("select current_setting('threads')").fetchone()[0]
    started = time.perf_counter()
    connection.execute("""
        create table events as
        select * from read_csv(?, header = true, auto_detect = false, quote = '"', escape = '"',
            columns = {'event_id': 'VARCHAR', 'app_id': 'VARCHAR', 'user_id': 'VARCHAR', 'event': 'VARCHAR',
                       'occurred_at': 'TIMESTAMPTZ', 'properties': 'JSON'})
    """, [args.csv])
    load_seconds = time.perf_counter() - started
    rows = connection.execute("select count(*) from events").fetchone()[0]
    sys.stderr.write(f"  DuckDB: loaded {rows} events in {load_seconds:.2f} s\n")
    best = None
    result = None
    for run in range(args.runs):
        started = time.perf_counter()
        result = connection.execute(sql).fetchall()
        seconds = time.perf_counter() - started
        sys.stderr.write(f"  DuckDB: funnel query run {run + 1} of {args.runs}: {seconds:.2f} s\n")
        best = seconds if best is None else min(best, seconds)
    series = [{"value": row[0], "steps": list(row[1:1 + len(STEPS)]), "excluded": row[1 + len(STEPS)]} for row in result]
    trends = """
        select (epoch_us(occurred_at) // 86400000000)::integer as day, count(*) as total,
               count(distinct user_id) as users
        from events where app_id = 'bench' and event = 'app_opened'
        group by day order by day
    """
    trends_best = None
    days = []
    for run in range(args.runs):
        started = time.perf_counter()
        days = connection.execute(trends).fetchall()
        seconds = time.perf_counter() - started
        sys.stderr.write(f"  DuckDB: trends query run {run + 1} of {args.runs}: {seconds:.2f} s\n")
        trends_best = seconds if trends_best is None else min(trends_best, seconds)
    print(json.dumps({"duckdb_version": duckdb.__version__, "threads": int(threads), "load_seconds": load_seconds,
                      "query_seconds": best, "rows_loaded": rows, "series": series, "trends_seconds": trends_best,
                      "days": [{"day": int(d), "total": int(t), "users": int(u)} for d, t, u in days]}))


if __name__ == "__main__":
    main()
