import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelPipeline
import FunnelQuery
import FunnelSQL
public import Logging
public import PostgresClient

/// `funnel bench query`: an ad hoc funnel over millions of custom events, beside DuckDB computing
/// the same funnel on the same data in the same run (`bench/duckdb_funnel.py`); the answers must
/// agree, or the run fails naming the figures that differ.
public struct QueryBenchmark {
    public var events: Int
    public var seed: UInt64
    public var runs: Int
    /// Generate into this directory and keep it and the scratch database.
    public var keep: String?
    public var duckdbPython: String?
    public var duckdbScript: String?
    public var noDuckDB: Bool
    public var noClickHouse: Bool

    public init(events: Int, seed: UInt64, runs: Int, keep: String?, duckdbPython: String?, duckdbScript: String?, noDuckDB: Bool,
                noClickHouse: Bool = false) {
        self.events = events
        self.seed = seed
        self.runs = runs
        self.keep = keep
        self.duckdbPython = duckdbPython
        self.duckdbScript = duckdbScript
        self.noDuckDB = noDuckDB
        self.noClickHouse = noClickHouse
    }

    /// The benchmarked funnel.
    static var spec: EventFunnelSpec {
        EventFunnelSpec(steps: EventStreamGenerator.steps.map { EventMatcher(events: [$0]) }, order: .ordered,
                        windowMicros: 3_600_000_000,
                        exclusions: [FunnelExclusion(matcher: EventMatcher(events: [EventStreamGenerator.exclusion]),
                                                     fromStep: 1, toStep: EventStreamGenerator.steps.count)],
                        breakdown: FunnelBreakdown(property: "platform", source: .event, attribution: .firstTouch))
    }

    /// Runs the benchmark; `connect` gives a connection to the selected database and its
    /// settings (the scratch database is made beside it) once the events are generated.
    public func run(logger: Logger, connect: () throws -> (PostgresConnection, ConnectionSettings)) throws {
        let root = URL(fileURLWithPath: keep ?? "/tmp/funnel-bench-query-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { if keep == nil { try? FileManager.default.removeItem(at: root) } }
        let csv = root.appending(path: "events.csv")

        say("generating \(events) events (seed \(seed)) into \(csv.path) ...")
        var started = Date()
        let generated = try EventStreamGenerator(events: events, seed: seed).writeCSV(to: csv.path)
        say(String(format: "  %d events of %d users, %d MB CSV (%.1f s)", generated.events, generated.users,
                   generated.bytes / 1_000_000, Date().timeIntervalSince(started)))

        let (admin, settings) = try connect()
        let name = "funnel_bench_query_\(getpid())"
        try admin.execute("create database \(try admin.quoteIdentifier(name))")
        defer {
            if keep == nil { _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)") }
        }
        let scratch = ConnectionSettings(conninfo: ScratchDatabase.conninfo(settings.conninfo, database: name),
                                         searchPath: FunnelSchema.searchPath)
        let connection = try scratch.connect(logger: logger)
        try Migrator().migrate(connection, logger: logger)

        started = Date()
        let loaded = try BenchEventLoader.load(csv: csv, summary: generated, into: connection)
        say(String(format: "PostgreSQL load (untimed for the comparison): %d rows by COPY, keys, ANALYZE in %.2f s", loaded,
                   Date().timeIntervalSince(started)))
        _ = ScratchDatabase.checkpoint(connection)

        say("funnel query (timed, the fastest of \(runs)): 5 steps, window 1h, exclusion app_uninstalled, breakdown platform (first touch)")
        var ours: FunnelQueryResult?
        var oursSeconds = Double.infinity
        for run in 1...runs {
            started = Date()
            let result = try FunnelQueryRunner(connection: connection).run(Self.spec, scope: FunnelQueryScope(app: EventStreamGenerator.app))
            let seconds = Date().timeIntervalSince(started)
            say(String(format: "  run %d of %d: %.2f s (%d events read, %d users in the funnel)", run, runs, seconds,
                       result.eventsRead, result.users.count))
            oursSeconds = min(oursSeconds, seconds)
            ours = result
        }
        guard let ours else { return }
        let figures = BenchFunnelFigures(ours)

        var baseline: BenchFunnelBaseline?
        if noDuckDB {
            say("DuckDB baseline: skipped (--no-duckdb)")
        } else if let found = try runBaseline(csv: csv) {
            baseline = found
            say(String(format: "DuckDB baseline (%@, %d threads): load %d rows %.2f s (not compared); query, the fastest of %d: %.2f s",
                       found.duckdbVersion, found.threads, found.rowsLoaded, found.loadSeconds, runs, found.querySeconds))
            let ratio = oursSeconds / found.querySeconds
            say(String(format: "funnel %.2f s vs DuckDB %.2f s: ratio %.2f (%@; target: no slower than DuckDB)", oursSeconds,
                       found.querySeconds, ratio, ratio <= 1 ? String(format: "%.1fx faster", 1 / ratio)
                                                              : String(format: "%.1fx slower", ratio)))
        } else {
            say(String(format: "funnel %.2f s (no DuckDB baseline)", oursSeconds))
        }
        var differing = figures.printBeside(baseline?.figures).map { "DuckDB: \($0)" }
        var compared = baseline != nil
        let trends = try measureTrends(connection, summary: generated)
        if let baseline, let seconds = baseline.trendsSeconds, let days = baseline.days {
            differing += printTrendsBeside(trends, peer: "DuckDB", seconds: seconds, days: days).map { "DuckDB: \($0)" }
        }
        if noClickHouse {
            say("ClickHouse: skipped (--no-clickhouse)")
        } else {
            say("funnel beside ClickHouse (timed, the fastest of \(runs)): the funnel without its exclusion, and retention")
            let mine = try measureClickHouseQuestions(connection, events: generated.events)
            if let theirs = try runClickHouse(csv: csv, asOfDay: mine.asOfDay) {
                differing += printBeside(mine, theirs).map { "ClickHouse: \($0)" }
                differing += printTrendsBeside(trends, peer: "ClickHouse", seconds: theirs.trendsSeconds, days: theirs.days)
                    .map { "ClickHouse: \($0)" }
                compared = true
            }
        }
        if keep != nil { say("kept: \(root.path) and database \(name)") }
        if compared {
            if differing.isEmpty {
                say("every figure agrees")
            } else {
                throw CommandFailure("funnel and its peers differ on: \(differing.joined(separator: "; "))")
            }
        }
    }

    func say(_ line: String) { DailyBenchmark.say(line) }

    /// Runs bench/duckdb_funnel.py; nil (after saying why) when it cannot run.
    private func runBaseline(csv: URL) throws -> BenchFunnelBaseline? {
        try runPeer(label: "DuckDB baseline", failure: "the DuckDB baseline", script: duckdbScript, relative: "bench/duckdb_funnel.py",
                    module: "duckdb", arguments: [csv.path, "--runs", String(runs)],
                    scriptHint: " (give --duckdb-script PATH)", pythonHint: ", then --duckdb-python .venv-bench/bin/python")
    }

    /// Runs a peer's script (`script`, else `relative` here or above the funnel binary) with the
    /// first Python that imports `module` (`--duckdb-python`, else the bench venv, else python3)
    /// and decodes the JSON it prints; nil, after saying why, when it cannot run.
    func runPeer<Output: Decodable>(label: String, failure: String, script given: String?, relative: String, module: String,
                                    arguments: [String], scriptHint: String = "", pythonHint: String = "") throws -> Output? {
        guard let script = DailyBenchmark.findScript(given, relative: relative) else {
            say("\(label): skipped: \(relative) not found here or above the funnel binary\(scriptHint)")
            return nil
        }
        let repository = script.deletingLastPathComponent().deletingLastPathComponent()
        let candidates = duckdbPython.map { [$0] }
            ?? [".venv-bench/bin/python", repository.appending(path: ".venv-bench/bin/python").path, "python3"]
        guard let python = candidates.first(where: { DailyBenchmark.hasModule($0, module) }) else {
            say("\(label): skipped: no Python with the \(module) module (tried \(candidates.joined(separator: ", "))); "
                + "run 'make bench-deps'\(pythonHint)")
            return nil
        }
        say("\(label): \(python) \(script.path) \(arguments[0]) ...")
        let outcome = try DailyBenchmark.runProcess(python, [script.path] + arguments, captureError: false)
        guard outcome.status == 0 else { throw CommandFailure("\(failure) failed (exit \(outcome.status))") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(Output.self, from: outcome.output)
        } catch {
            throw CommandFailure("\(failure) printed what is not its JSON: \(error)")
        }
    }
}
