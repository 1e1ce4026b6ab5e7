#!/usr/bin/env python3
"""The analyst's alternative to funnel, timed: load every CSV of a generated data set into DuckDB
and run the same metrics over the whole history.

`funnel bench daily` runs this beside its daily incremental run; it can also be run by hand:

    python3 bench/duckdb_baseline.py DIR [--rates JSON] [--database FILE] [--load-only]

With --load-only it stops after loading the files (`funnel bench ingest` holds that beside its own
history import) and prints the load's seconds and rows.

DIR holds the CSV files `funnel generate` writes (installs-*.csv, opens-*.csv, ..., late files
included). The queries follow SPEC.md "Metrics" with the default configuration (UTC, calendar
day rule, revenue share 1.0, onboarding step `onboarding_complete`, funnel window 7 days, purchase
window 30 days, regular user = 3 opens on days 1..7, k-factor window 30 days): dedup by event_id,
user facts (first install: cohort date, network, campaign, country, paid/organic/viral), installs
per cohort and network, classic D1/D3/D7/D14/D30 retention per network over mature cohorts,
cumulative LTV per network by day N (revenue in USD at the same rates funnel seeds), CPI per
network and day, k-factor with the viral cycle time, and the default funnel's step counts with
median times; and onboarding friction (SPEC.md "Onboarding friction", with funnel's defaults):
the ux telemetry deduplicated, each session's events in time order through the keyboard-occlusion
and single-event detectors (their state machines as window functions), the screens users reached,
each user's outcome (onboarding completed; a return on day 1 once it is known), the hit and not-hit
users per (screen, friction type), Fisher's exact test, Benjamini-Hochberg and the flags.

Prints one JSON document on stdout: load, query (metrics, then friction) and total seconds, row
counts, and a few headline numbers to hold beside funnel's. Progress goes to stderr.
"""

import argparse
import glob
import json
import math
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
    # Geometry as 4-byte floats, as funnel stores it (raw_ux's real columns).
    "ux": ("occurred_at", {column: "FLOAT" for column in [
        "kb_x", "kb_y", "kb_w", "kb_h", "focus_x", "focus_y", "focus_w", "focus_h",
        "action_x", "action_y", "action_w", "action_h", "caret_y", "screen_w", "screen_h"]}
        | {flag: "BOOLEAN" for flag in ["feedback_shown", "guidance_shown", "message_shown", "bad_state"]}),
}
EVENT_KINDS = ["installs", "opens", "retention", "purchases", "invites", "steps"]

RETENTION_DAYS = [1, 3, 7, 14, 30]
REGULAR_OPENS, REGULAR_DAYS = 3, 7
FUNNEL_WINDOW_DAYS, PURCHASE_WINDOW_DAYS = 7, 30
KFACTOR_WINDOW_DAYS = 30
ONBOARDING_STEP = "onboarding_complete"
# Onboarding friction (FrictionComputation's defaults): keyboard hide/show within this many seconds
# of a rotation belong to it; a (screen, friction type) is flagged with at least 20 users hit, 5 of
# them dropped off, a relative risk above 1 and a Benjamini-Hochberg q-value at most 0.05.
ROTATION_WINDOW_SECONDS = 1.0
MINIMUM_USERS_HIT, MINIMUM_DROPPED_HIT, FALSE_DISCOVERY_RATE = 20, 5, 0.05


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

# Onboarding friction as funnel finds it (SPEC.md "Onboarding friction"; FrictionDetector and
# KeyboardOcclusionDetector in Sources/FunnelCore/Friction, sql/intermediate/friction/): the detectors' state
# machines written as window functions over each session's events in time order.
FRICTION_QUERIES = [
    ("dedup ux", """
        create table ux as
        select * from raw_ux
        qualify row_number() over (partition by app_id, event_id order by occurred_at) = 1
    """),
    # Who reached each screen: its telemetry, or a step naming it (int_friction_reached.sql).
    ("friction: reached screens", """
        create table friction_reached as
        select distinct app_id, screen, user_id from ux
        union
        select distinct app_id, screen, user_id from steps where screen is not null
    """),
    # Each session's events in time order, numbered (rn); keyboard will_* notifications are
    # intentions the detectors ignore (session_events.sql leaves them out too). seg numbers
    # the runs of events on one screen (a new screen resets the keyboard's state); layout_rn is the
    # event that gave the screen's current layout (focused field, primary button, caret), 0 for none.
    ("friction: session events", """
        create macro rect(x, y, w, h) as
            case when x is not null and y is not null and w is not null and h is not null
                 then {'x': x::double, 'y': y::double, 'w': w::double, 'h': h::double} end;
        create macro window_rect(w, h) as
            case when w > 0 and h > 0 then {'x': 0.0::double, 'y': 0.0::double, 'w': w::double, 'h': h::double} end;
        -- the shared area of two rectangles (touching edges do not count), as FrictionRect does it
        create macro intersection(a, b) as
            case when a.w > 0 and a.h > 0 and b.w > 0 and b.h > 0
                      and a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h
                 then {'x': greatest(a.x, b.x), 'y': greatest(a.y, b.y),
                       'w': least(a.x + a.w, b.x + b.w) - greatest(a.x, b.x),
                       'h': least(a.y + a.h, b.y + b.h) - greatest(a.y, b.y)} end;
        -- the share of a target the keyboard covers, null when it covers none of it
        create macro covered_share(keyboard, target) as
            intersection(keyboard, target).w * intersection(keyboard, target).h / (target.w * target.h);
        create table sessions as
        select app_id, user_id, session_id, row_number() over () as sid
        from (select distinct app_id, user_id, session_id from ux);
        create table ux_events as
        with numbered as (
            select s.sid, u.* exclude (app_id, user_id, session_id, permission, field)
            from ux u
            join sessions s using (app_id, user_id, session_id)
            where u.type <> 'keyboard' or u.phase is null or u.phase not in ('will_show', 'will_hide', 'will_change_frame')
        ), marked as (
            select * exclude (event_id), row_number() over w as rn, lag(screen) over w is distinct from screen as screen_changed,
                   last_value(input_mode ignore nulls) over (w rows between unbounded preceding and current row)
                       as known_input_mode
            from numbered
            window w as (partition by sid order by occurred_at, event_id)
        )
        select * exclude (screen_changed, orientation), epoch(occurred_at) as t,
               case when orientation like 'landscape%' then 'landscape'
                    when orientation like 'portrait%' then 'portrait' else orientation end as orientation,
               sum(screen_changed::integer) over w as seg,
               last_value(case when rect(focus_x, focus_y, focus_w, focus_h) is not null
                                    or rect(action_x, action_y, action_w, action_h) is not null or caret_y is not null
                               then rn when screen_changed then 0 end ignore nulls)
                   over (w rows between unbounded preceding and current row) as layout_rn
        from marked
        window w as (partition by sid order by rn)
    """),
    # A rotation's will..did (widened by the window) holds keyboard notifications that are no user
    # action; a will without its did stands alone.
    ("friction: rotations", f"""
        create table rotation_spans as
        with r as (
            select sid, t, phase, lag(phase) over w as previous_phase, lag(t) over w as previous_t,
                   lead(phase) over w as next_phase
            from ux_events
            where type = 'rotation' and phase in ('will', 'did')
            window w as (partition by sid order by rn)
        )
        select sid,
               case when phase = 'did' and previous_phase = 'will' then previous_t else t end
                   - {ROTATION_WINDOW_SECONDS} as from_t,
               case when phase = 'did' then t + {ROTATION_WINDOW_SECONDS} else t + 2 * {ROTATION_WINDOW_SECONDS} end
                   as to_t
        from r
        where phase = 'did' or next_phase is distinct from 'did'
    """),
    # What each keyboard notification does: a hide (outside rotations) or a frame off screen
    # uncovers everything; a known frame on screen covers each target (with the covered share) or
    # not; a did_change_frame equal to the last one on the screen since the last rotation or hide
    # (same frame, same layout) repeats it and does nothing.
    ("friction: keyboard coverage", """
        create table keyboard_coverage as
        with keyboard as (
            select * from ux_events where type in ('keyboard', 'rotation')
        ), borrowed as (
            -- the layout of an earlier event on the screen, for notifications that carry none
            select k.sid, k.rn,
                   {'focus': rect(l.focus_x, l.focus_y, l.focus_w, l.focus_h),
                    'action': rect(l.action_x, l.action_y, l.action_w, l.action_h),
                    'caret_y': l.caret_y::double, 'win': window_rect(l.screen_w, l.screen_h)} as layout
            from keyboard k
            join ux_events l on l.sid = k.sid and l.rn = k.layout_rn
            where k.layout_rn > 0 and k.layout_rn <> k.rn
        ), rotation_hides as (
            select distinct k.sid, k.rn
            from keyboard k
            join rotation_spans r on r.sid = k.sid
            where k.type = 'keyboard' and k.phase = 'did_hide' and k.t between r.from_t and r.to_t
        ), marked as (
            select k.sid, k.rn, k.seg, k.occurred_at, k.screen, k.phase,
                   coalesce(k.input_mode, k.known_input_mode) as input_mode, k.orientation,
                   rect(k.kb_x, k.kb_y, k.kb_w, k.kb_h) as kb, window_rect(k.screen_w, k.screen_h) as win,
                   case when k.layout_rn = k.rn
                        then {'focus': rect(k.focus_x, k.focus_y, k.focus_w, k.focus_h),
                              'action': rect(k.action_x, k.action_y, k.action_w, k.action_h),
                              'caret_y': k.caret_y::double, 'win': window_rect(k.screen_w, k.screen_h)}
                        else b.layout end as layout,
                   case when k.type = 'rotation' then 'rotation'
                        when k.phase = 'did_hide' and h.rn is null then 'hide'
                        when k.phase in ('did_show', 'did_change_frame') and k.kb_x is not null and k.kb_y is not null
                             and k.kb_w is not null and k.kb_h is not null
                             and not (k.kb_x = 0 and k.kb_y = 0 and k.kb_w = 0 and k.kb_h = 0) then 'frame'
                   end as effect
            from keyboard k
            left join borrowed b on b.sid = k.sid and b.rn = k.rn
            left join rotation_hides h on h.sid = k.sid and h.rn = k.rn
        ), remembered as (
            select *,
                   last_value(case when effect in ('rotation', 'hide') then rn end ignore nulls) over before as reset_rn,
                   last_value(case when effect = 'frame' and phase = 'did_change_frame'
                                   then {'rn': rn, 'seg': seg, 'kb': kb, 'layout': layout} end ignore nulls) over before
                       as last_change
            from marked
            where effect is not null
            window before as (partition by sid order by rn rows between unbounded preceding and 1 preceding)
        ), framed as (
            select *, coalesce(win, layout.win) as window_rect
            from remembered
            where effect = 'hide'
               or (effect = 'frame'
                   and not coalesce(phase = 'did_change_frame' and last_change.seg = seg
                                    and last_change.rn > coalesce(reset_rn, 0) and last_change.kb = kb
                                    and last_change.layout is not distinct from layout, false))
        ), visible as (
            select *,
                   case when effect = 'hide' or window_rect is null then null
                        when kb.x >= window_rect.x and kb.y >= window_rect.y and kb.x + kb.w <= window_rect.x + window_rect.w
                             and kb.y + kb.h <= window_rect.y + window_rect.h then kb
                        -- overhanging the bottom (a hardware keyboard's accessory bar): its visible part
                        when kb.y > window_rect.y then intersection(kb, window_rect)
                   end as seen
            from framed
            where effect = 'hide' or window_rect is not null
        ), judged as (
            -- an off-screen frame uncovers whatever the layout; a frame on screen needs a layout in
            -- the same window
            select * from visible
            where effect = 'hide' or seen is null or (layout is not null and (layout.win is null or layout.win = window_rect))
        )
        select sid, rn, seg, occurred_at, screen, input_mode, orientation,
               covered_share(seen, layout.focus) as field_share,
               covered_share(seen, layout.action) as action_share,
               coalesce(seen is not null and layout.caret_y is not null and seen.w > 0 and seen.h > 0
                        and layout.caret_y >= seen.y and layout.caret_y <= seen.y + seen.h
                        and (layout.focus is null
                             or (seen.x < layout.focus.x + layout.focus.w and layout.focus.x < seen.x + seen.w)), false)
                   as caret_covered
        from judged
    """),
    # An episode starts where a target becomes covered: covered now, not covered at the screen's
    # previous effective notification (or none). The other detectors read single events; a
    # permission denial without guidance counts unless the user made progress on that screen
    # afterwards (keyboard, validation or touch activity), and then once, at the first such denial.
    ("friction: episodes", """
        create table friction_episodes as
        with coverage as (
            select *, coalesce(lag(seg) over w = seg, false) as same_screen,
                   coalesce(lag(field_share is not null) over w, false) as field_before,
                   coalesce(lag(action_share is not null) over w, false) as action_before,
                   coalesce(lag(caret_covered) over w, false) as caret_before
            from keyboard_coverage
            window w as (partition by sid order by rn)
        ), progress as (
            select sid, screen, max(rn) as last_rn
            from ux_events
            where type in ('keyboard', 'validation_error', 'multi_touch')
            group by all
        ), denials as (
            select e.sid, min(e.rn) as rn
            from ux_events e
            left join progress p on p.sid = e.sid and p.screen = e.screen
            where e.type = 'permission_denied' and e.guidance_shown = false and e.rn > coalesce(p.last_rn, 0)
            group by e.sid, e.screen
        ), episodes as (
            select sid, screen, 'keyboard_covers_field' as friction_type, occurred_at, field_share as severity, input_mode,
                   orientation
            from coverage where field_share is not null and not (same_screen and field_before)
            union all
            select sid, screen, 'keyboard_covers_action', occurred_at, action_share, input_mode, orientation
            from coverage where action_share is not null and not (same_screen and action_before)
            union all
            select sid, screen, 'keyboard_covers_caret', occurred_at, 1.0, input_mode, orientation
            from coverage where caret_covered and not (same_screen and caret_before)
            union all
            select e.sid, e.screen,
                   case e.type when 'network_error' then 'network_error_no_feedback'
                               when 'validation_error' then 'validation_error_silent'
                               when 'multi_touch' then 'multi_touch_bad_state'
                               else 'permission_denied_no_guidance' end,
                   e.occurred_at, 1.0, coalesce(e.input_mode, e.known_input_mode), e.orientation
            from ux_events e
            left join denials d on d.sid = e.sid and d.rn = e.rn
            where (e.type = 'network_error' and e.feedback_shown = false)
               or (e.type = 'validation_error' and e.message_shown = false)
               or (e.type = 'multi_touch' and e.bad_state = true)
               or d.rn is not null
        ), platforms as (
            select app_id, user_id, arg_min(platform, installed_at) as platform from installs group by all
        )
        select s.app_id, s.user_id, s.session_id, e.screen, e.friction_type, e.occurred_at, e.severity, e.input_mode,
               e.orientation, p.platform
        from episodes e
        join sessions s on s.sid = e.sid
        left join platforms p on p.app_id = s.app_id and p.user_id = s.user_id
    """),
    # Each user's outcome: onboarding completed, and a return on day 1 once day 1 has ended by the
    # end of the app's last day with an open (friction_outcome_class, migration 0047).
    ("friction: outcomes", """
        create table friction_outcomes as
        with users as (
            select distinct app_id, user_id from friction_reached
        ), completed as (
            select distinct app_id, user_id from steps where step = 'onboarding_complete'
        ), first_installs as (
            select app_id, user_id, date_trunc('day', min(installed_at)) + interval 1 day as day1_from,
                   date_trunc('day', min(installed_at)) + interval 2 day as day1_to
            from installs group by all
        ), returned as (
            select distinct f.app_id, f.user_id
            from first_installs f
            join opens o on o.app_id = f.app_id and o.user_id = f.user_id
            where o.opened_at >= f.day1_from and o.opened_at < f.day1_to
        ), apps as (
            select app_id, date_trunc('day', max(opened_at)) + interval 1 day as data_through from opens group by all
        )
        select u.app_id, u.user_id,
               case when c.user_id is not null then 3 else 0 end
               + case when f.day1_to is null or a.data_through is null or f.day1_to > a.data_through then 0
                      when r.user_id is not null then 2 else 1 end as class
        from users u
        left join completed c on c.app_id = u.app_id and c.user_id = u.user_id
        left join first_installs f on f.app_id = u.app_id and f.user_id = u.user_id
        left join returned r on r.app_id = u.app_id and r.user_id = u.user_id
        left join apps a on a.app_id = u.app_id
    """),
    # Per (screen with telemetry, friction type): the users who reached the screen, hit or not,
    # and how many of each dropped off (no onboarding completion) or did not return on day 1
    # (where day 1 is known), as fct_friction_impact.counts.sql counts them.
    ("friction: impact counts", """
        create table friction_counts as
        with screen_totals as (
            select r.app_id, r.screen, count(*) as users, count(*) filter (where o.class < 3) as dropped,
                   count(*) filter (where o.class % 3 <> 0) as d1_users, count(*) filter (where o.class % 3 = 1) as d1_dropped
            from friction_reached r
            join (select distinct app_id, screen from ux) s on s.app_id = r.app_id and s.screen = r.screen
            join friction_outcomes o on o.app_id = r.app_id and o.user_id = r.user_id
            group by all
        ), hits as (
            select h.app_id, h.screen, h.friction_type, count(*) as users, count(*) filter (where o.class < 3) as dropped,
                   count(*) filter (where o.class % 3 <> 0) as d1_users, count(*) filter (where o.class % 3 = 1) as d1_dropped
            from (select distinct app_id, screen, friction_type, user_id from friction_episodes) h
            join friction_outcomes o on o.app_id = h.app_id and o.user_id = h.user_id
            group by all
        )
        select h.app_id, h.screen, h.friction_type, h.users as users_hit, h.dropped as dropped_hit,
               s.users - h.users as users_not_hit, s.dropped - h.dropped as dropped_not_hit,
               h.d1_users as d1_users_hit, h.d1_dropped as d1_dropped_hit,
               s.d1_users - h.d1_users as d1_users_not_hit, s.d1_dropped - h.d1_dropped as d1_dropped_not_hit
        from hits h
        join screen_totals s on s.app_id = h.app_id and s.screen = h.screen
        order by h.app_id, h.screen, h.friction_type
    """),
]


def fisher_two_sided(a, b, c, d):
    """Fisher's exact two-sided p-value of [[a, b], [c, d]], as FisherExactTest computes it."""
    row1, row2, column1, n = a + b, c + d, a + c, a + b + c + d
    if n == 0 or row1 == 0 or row2 == 0 or column1 == 0 or column1 >= n:
        return 1.0
    def log_factorial(k):
        return math.lgamma(k + 1)
    constant = (log_factorial(row1) + log_factorial(row2) + log_factorial(column1) + log_factorial(n - column1)
                - log_factorial(n))
    def log_probability(x):
        return (constant - log_factorial(x) - log_factorial(row1 - x) - log_factorial(column1 - x)
                - log_factorial(row2 - column1 + x))
    threshold = log_probability(a) + math.log1p(1e-7)
    total = sum(math.exp(value) for value in (log_probability(x) for x in range(max(0, column1 - row2), min(row1, column1) + 1))
                if value <= threshold)
    return min(1.0, total)


def friction_verdicts(rows):
    """Tests, adjusts (Benjamini-Hochberg per app) and flags each (app, screen, friction type) of
    the impact counts, ranking the flagged ones by users lost, as FrictionFlagRules.assess does."""
    verdicts = []
    for app in sorted({row[0] for row in rows}):
        family = [row for row in rows if row[0] == app]
        tested = []
        for _, screen, friction_type, hit, dropped_hit, not_hit, dropped_not_hit, *_ in family:
            dropoff_hit = dropped_hit / hit if hit > 0 else None
            dropoff_not_hit = dropped_not_hit / not_hit if not_hit > 0 else None
            relative_risk = None
            if dropoff_hit is not None and dropoff_not_hit is not None:
                relative_risk = (dropoff_hit / dropoff_not_hit if dropoff_not_hit > 0
                                 else (math.inf if dropoff_hit > 0 else None))
            users_lost = (max(0.0, hit * (dropoff_hit - dropoff_not_hit))
                          if dropoff_hit is not None and dropoff_not_hit is not None else 0.0)
            p_value = fisher_two_sided(dropped_hit, hit - dropped_hit, dropped_not_hit, not_hit - dropped_not_hit)
            tested.append({"app_id": app, "screen": screen, "friction_type": friction_type, "users_hit": hit,
                           "relative_risk": relative_risk, "users_lost": users_lost, "p_value": p_value,
                           "large": hit >= MINIMUM_USERS_HIT and dropped_hit >= MINIMUM_DROPPED_HIT})
        order = sorted(range(len(tested)), key=lambda index: tested[index]["p_value"])
        running = 1.0
        for rank in range(len(tested), 0, -1):
            index = order[rank - 1]
            running = min(running, tested[index]["p_value"] * len(tested) / rank)
            tested[index]["q_value"] = min(1.0, running)
        for verdict in tested:
            verdict["flagged"] = (verdict["large"] and (verdict["relative_risk"] or 0) > 1
                                  and verdict["q_value"] <= FALSE_DISCOVERY_RATE)
        flagged = sorted((verdict for verdict in tested if verdict["flagged"]), key=lambda verdict: -verdict["users_lost"])
        for position, verdict in enumerate(flagged):
            verdict["rank"] = position + 1
        verdicts.extend(tested)
    return verdicts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="directory of the generated CSV files")
    parser.add_argument("--rates", help="currency rates as JSON {\"EUR\": 1.08, ...} (default: migration 0003's)")
    parser.add_argument("--database", default=":memory:", help="DuckDB database file (default: in memory)")
    parser.add_argument("--load-only", action="store_true", help="stop after loading the files; print the load's figures")
    arguments = parser.parse_args()
    rates = json.loads(arguments.rates) if arguments.rates else default_rates()

    started = time.perf_counter()
    connection = duckdb.connect(arguments.database)
    connection.execute("set TimeZone = 'UTC'")
    connection.execute("set preserve_insertion_order = false")
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
    if arguments.load_only:
        print(json.dumps({
            "duckdb_version": duckdb.__version__,
            "threads": connection.execute("select current_setting('threads')").fetchone()[0],
            "load_seconds": round(loaded - started, 3),
            "rows_loaded": sum(rows.values()),
            "rows_by_kind": rows,
        }, indent=2))
        return

    query_seconds = {}

    def run(queries):
        for name, sql in queries:
            begun = time.perf_counter()
            connection.execute(sql)
            query_seconds[name] = round(time.perf_counter() - begun, 4)

    run(QUERIES)
    metrics_done = time.perf_counter()
    run(FRICTION_QUERIES)
    begun = time.perf_counter()
    verdicts = friction_verdicts(connection.execute("select * from friction_counts").fetchall())
    query_seconds["friction: tests and flags"] = round(time.perf_counter() - begun, 4)
    finished = time.perf_counter()

    def one(sql):
        row = connection.execute(sql).fetchone()
        return row[0] if row else None

    result_rows = {table: one(f"select count(*) from {table}")
                   for table in ["user_facts", "user_days", "cohort_installs", "retention_summary", "ltv", "cpi", "kfactor", "funnel",
                             "friction_episodes", "friction_outcomes", "friction_counts"]}
    headline = {
        "users": one("select count(*) from user_facts"),
        "d1_retention_all": one("select rate from retention_summary where network = 'all' and day = 1"),
        "d7_retention_all": one("select rate from retention_summary where network = 'all' and day = 7"),
        "ltv_d7_all": one("select ltv from ltv where network = 'all' and day = 7"),
        "cpi_all": one("select cpi from cpi where date is null and network = 'all'"),
        "k_factor_all": one("select k_factor from kfactor where network = 'all'"),
        "first_purchase_all": one("select first_purchase from funnel where network = 'all'"),
        "friction_episodes": one("select count(*) from friction_episodes"),
        "friction_flagged": sum(1 for verdict in verdicts if verdict["flagged"]),
        "friction_top": next((f"{verdict['screen']} / {verdict['friction_type']}" for verdict in verdicts
                              if verdict.get("rank") == 1), None),
        "friction_top_users_hit": next((verdict["users_hit"] for verdict in verdicts if verdict.get("rank") == 1), None),
        "friction_top_users_lost": next((verdict["users_lost"] for verdict in verdicts if verdict.get("rank") == 1), None),
    }
    print(json.dumps({
        "duckdb_version": duckdb.__version__,
        "threads": one("select current_setting('threads')"),
        "files": sum(len(files_of(arguments.directory, kind)) for kind in KINDS),
        "load_seconds": round(loaded - started, 3),
        "query_seconds": round(finished - loaded, 3),
        "metrics_query_seconds": round(metrics_done - loaded, 3),
        "friction_query_seconds": round(finished - metrics_done, 3),
        "total_seconds": round(finished - started, 3),
        "rows_loaded": sum(rows.values()),
        "rows_by_kind": rows,
        "result_rows": result_rows,
        "seconds_by_query": query_seconds,
        "headline": headline,
    }, indent=2))


if __name__ == "__main__":
    main()
