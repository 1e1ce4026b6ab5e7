import Foundation
import FunnelCore
import FunnelGenerate
import FunnelPipeline
import FunnelQuery
import PostgresClient

/// The ClickHouse side of `funnel bench query` (`bench/chdb_query.py`, chdb in-process): the
/// funnel without its exclusion (ClickHouse's windowFunnel has none) and the D1/D7 retention by
/// first-open day, each timed on both sides and compared figure by figure, and the bytes each
/// side stores per event.
extension QueryBenchmark {
    /// The benchmarked funnel without the exclusion: the question both sides can ask.
    static var specWithoutExclusion: EventFunnelSpec {
        var spec = spec
        spec.exclusions = []
        return spec
    }

    /// First-time cohorts by the day of the first app_opened, back on days 1 and 7 by app_opened.
    static var retentionSpec: RetentionSpec {
        RetentionSpec(start: EventMatcher(events: [EventStreamGenerator.steps[0]]),
                      returning: EventMatcher(events: [EventStreamGenerator.steps[0]]), periods: 7, brackets: [])
    }

    /// What bench/chdb_query.py prints.
    struct ClickHouseSide: Decodable {
        struct Cohort: Decodable, Equatable {
            var day: Int
            var size: Int
            var d1: Int?
            var d7: Int?
        }

        var chdbVersion: String
        var clickhouseVersion: String
        var threads: Int
        var loadSeconds: Double
        var rowsLoaded: Int
        var bytesOnDisk: Int
        var funnelSeconds: Double
        var retentionSeconds: Double
        var trendsSeconds: Double
        var series: [BenchFunnelFigures.Series]
        var cohorts: [Cohort]
        var days: [BenchTrendDay]
    }

    /// funnel's figures and times for the two questions ClickHouse is asked.
    struct OursBesideClickHouse {
        var funnel: BenchFunnelFigures
        var funnelSeconds: Double
        var cohorts: [ClickHouseSide.Cohort]
        var retentionSeconds: Double
        var asOfDay: Int
        var bytesPerEvent: Double
    }

    /// Times funnel on the funnel without exclusion and on the retention, the fastest of `runs`.
    func measureClickHouseQuestions(_ connection: PostgresConnection, events: Int) throws -> OursBesideClickHouse {
        let scope = FunnelQueryScope(app: EventStreamGenerator.app)
        var funnelSeconds = Double.infinity
        var funnel: FunnelQueryResult?
        for run in 1...runs {
            let started = Date()
            funnel = try FunnelQueryRunner(connection: connection).run(Self.specWithoutExclusion, scope: scope)
            let seconds = Date().timeIntervalSince(started)
            say(String(format: "  funnel without exclusion, run %d of %d: %.2f s", run, runs, seconds))
            funnelSeconds = min(funnelSeconds, seconds)
        }
        var retentionSeconds = Double.infinity
        var retention: RetentionQueryResult?
        for run in 1...runs {
            let started = Date()
            retention = try RetentionQueryRunner(connection: connection)
                .run(Self.retentionSpec, scope: RetentionQueryScope(app: EventStreamGenerator.app))
            let seconds = Date().timeIntervalSince(started)
            say(String(format: "  retention D1/D7 by first-open day, run %d of %d: %.2f s", run, runs, seconds))
            retentionSeconds = min(retentionSeconds, seconds)
        }
        guard let funnel, let retention, let series = retention.table.series.first else {
            throw CommandFailure("the funnel or the retention of the benchmark answered nothing")
        }
        let cohorts = series.cohorts.filter { $0.size > 0 }.map { cohort in
            ClickHouseSide.Cohort(day: cohort.firstDay, size: cohort.size, d1: cohort.classic[1], d7: cohort.classic[7])
        }
        let bytes = try connection.query("""
            select ((select coalesce(sum(pg_total_relation_size(relid)), 0) from pg_partition_tree('raw_events'))
                    + pg_total_relation_size('raw_events_keys'))::bigint
            """).scalar(Int64.self)
        return OursBesideClickHouse(funnel: BenchFunnelFigures(funnel), funnelSeconds: funnelSeconds, cohorts: cohorts,
                                    retentionSeconds: retentionSeconds, asOfDay: retention.asOfDay,
                                    bytesPerEvent: Double(bytes) / Double(max(events, 1)))
    }

    /// Runs bench/chdb_query.py; nil (after saying why) when it cannot run.
    func runClickHouse(csv: URL, asOfDay: Int) throws -> ClickHouseSide? {
        try runPeer(label: "ClickHouse", failure: "the ClickHouse side (bench/chdb_query.py)", script: nil,
                    relative: "bench/chdb_query.py", module: "chdb",
                    arguments: [csv.path, "--runs", String(runs), "--threads", "2", "--as-of", String(asOfDay)])
    }

    /// Prints funnel beside ClickHouse: the times, their ratios, storage; returns what differs.
    func printBeside(_ ours: OursBesideClickHouse, _ theirs: ClickHouseSide) -> [String] {
        func ratio(_ a: Double, _ b: Double) -> String {
            let r = a / b
            return String(format: "ratio %.2f (%@; target: at most 2x ClickHouse)", r,
                          r <= 1 ? String(format: "%.1fx faster", 1 / r) : String(format: "%.1fx slower", r))
        }
        say(String(format: "ClickHouse (chdb %@, ClickHouse %@, %d threads): load %d rows %.2f s (not compared)",
                   theirs.chdbVersion, theirs.clickhouseVersion, theirs.threads, theirs.rowsLoaded, theirs.loadSeconds))
        say(String(format: "funnel without exclusion: funnel %.2f s vs ClickHouse %.2f s: %@", ours.funnelSeconds, theirs.funnelSeconds,
                   ratio(ours.funnelSeconds, theirs.funnelSeconds)))
        say(String(format: "retention D1/D7: funnel %.2f s vs ClickHouse %.2f s: %@", ours.retentionSeconds, theirs.retentionSeconds,
                   ratio(ours.retentionSeconds, theirs.retentionSeconds)))
        let theirBytes = Double(theirs.bytesOnDisk) / Double(max(theirs.rowsLoaded, 1))
        say(String(format: "storage per event: funnel %.1f bytes (raw_events with its indexes and keys) vs ClickHouse %.1f bytes: %.1fx",
                   ours.bytesPerEvent, theirBytes, ours.bytesPerEvent / theirBytes))
        var differing = ours.funnel.printBeside(BenchFunnelFigures(series: theirs.series), peer: "ClickHouse")
            .map { "funnel without exclusion \($0)" }
        let theirCohorts = Dictionary(theirs.cohorts.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        var compared = 0
        for cohort in ours.cohorts {
            guard let other = theirCohorts[cohort.day] else {
                differing.append("retention cohort \(cohort.day) missing on ClickHouse's side")
                continue
            }
            compared += 1
            if other.size != cohort.size || other.d1 != cohort.d1 || other.d7 != cohort.d7 {
                differing.append("retention cohort \(cohort.day): funnel \(cohort.size)/\(cohort.d1.map(String.init) ?? "-")/\(cohort.d7.map(String.init) ?? "-")"
                    + " vs \(other.size)/\(other.d1.map(String.init) ?? "-")/\(other.d7.map(String.init) ?? "-")")
            }
        }
        if theirs.cohorts.count != ours.cohorts.count {
            differing.append("retention: \(ours.cohorts.count) cohorts vs \(theirs.cohorts.count)")
        }
        say("  retention: \(compared) cohorts compared (size, D1, D7; immature cells blank on both sides)")
        return differing
    }
}

/// The trends question of `funnel bench query`: app_opened per UTC day, the events and the
/// distinct users, asked of funnel (`funnel query trends`) and of each peer.
struct BenchTrendDay: Decodable, Equatable {
    var day: Int
    var total: Int
    var users: Int
}

extension QueryBenchmark {
    /// The trends both peers are asked: app_opened per day, total and unique users.
    static var trendsSpec: TrendsSpec {
        let opened = EventMatcher(events: [EventStreamGenerator.steps[0]])
        return TrendsSpec(series: [TrendSeries(matcher: opened, math: .total), TrendSeries(matcher: opened, math: .uniqueUsers)])
    }

    /// funnel's trends over every day of the events, the fastest of `runs`: the days with events.
    func measureTrends(_ connection: PostgresConnection, summary: EventStreamGenerator.Summary) throws -> (days: [BenchTrendDay], seconds: Double) {
        let calendar = InsightCalendar(interval: .day, timeZone: "UTC")
        let range = InsightRange(app: EventStreamGenerator.app, fromDay: calendar.day(ofMicros: summary.firstMicros),
                                 toDay: calendar.day(ofMicros: summary.lastMicros))
        var best = Double.infinity
        var days: [BenchTrendDay] = []
        for run in 1...runs {
            let started = Date()
            let result = try InsightQueryRunner(connection: connection).trends(Self.trendsSpec, range: range)
            let seconds = Date().timeIntervalSince(started)
            say(String(format: "  trends app_opened per day (total, dau), run %d of %d: %.2f s", run, runs, seconds))
            best = min(best, seconds)
            guard result.lines.count == 2 else { throw CommandFailure("the benchmark's trends answered \(result.lines.count) lines") }
            days = (range.fromDay!...range.toDay!).enumerated().compactMap { index, day in
                let total = Int(result.lines[0].values[index] ?? 0), users = Int(result.lines[1].values[index] ?? 0)
                return total > 0 || users > 0 ? BenchTrendDay(day: day, total: total, users: users) : nil
            }
        }
        return (days, best)
    }

    /// Prints funnel's trends time beside a peer's; returns the days that differ.
    func printTrendsBeside(_ ours: (days: [BenchTrendDay], seconds: Double), peer: String, seconds: Double,
                           days: [BenchTrendDay]) -> [String] {
        let ratio = ours.seconds / seconds
        say(String(format: "trends: funnel %.2f s vs %@ %.2f s: ratio %.2f (%@)", ours.seconds, peer, seconds, ratio,
                   ratio <= 1 ? String(format: "%.1fx faster", 1 / ratio) : String(format: "%.1fx slower", ratio)))
        let theirs = Dictionary(days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        var differing: [String] = []
        for day in ours.days where theirs[day.day] != day {
            differing.append("trends day \(day.day): funnel \(day.total)/\(day.users) vs \(theirs[day.day].map { "\($0.total)/\($0.users)" } ?? "none")")
        }
        if days.count != ours.days.count { differing.append("trends: \(ours.days.count) days vs \(days.count)") }
        say("  trends: \(ours.days.count) days compared (events and users)")
        return differing
    }
}
