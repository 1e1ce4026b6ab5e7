import ArgumentParser
import FunnelBench
import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelQuery
import FunnelSQL
import Logging
import PostgresClient

/// `funnel bench query`: an ad hoc funnel over millions of custom events, beside DuckDB computing
/// the same funnel on the same data in the same run; the answers must agree.
struct BenchQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Time a 5-step funnel query over generated events beside DuckDB computing the same funnel.",
        discussion: """
        Generates --events custom events (a signup funnel with drop-off, repeated attempts, an \
        exclusion and noise; EventStreamGenerator) as CSV into a scratch directory, loads them into \
        raw_events of a scratch database next to the selected one with COPY (untimed for the \
        comparison), then times 'funnel query funnel' --step app_opened --step signup_started --step \
        signup_form_submitted --step email_verified --step onboarding_completed --window 1h \
        --exclude app_uninstalled --breakdown platform (first touch), the fastest of --runs. \
        bench/duckdb_funnel.py loads the same CSV into DuckDB and computes the same funnel; its \
        fastest query (load apart) is the baseline. Exits non-zero when any figure differs.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Events to generate (about a tenth as many users).")
    var events = 10_000_000

    @Option(help: "Random seed of the generated events.")
    var seed: UInt64 = 1

    @Option(help: "Times to run each side's query; the fastest counts.")
    var runs = 2

    @Option(help: ArgumentHelp("Generate into this directory and keep it and the scratch database.", valueName: "dir"))
    var keep: String?

    @Option(name: .customLong("duckdb-python"),
            help: ArgumentHelp("Python interpreter with the duckdb module (default: .venv-bench/bin/python, then python3).", valueName: "path"))
    var duckdbPython: String?

    @Option(name: .customLong("duckdb-script"),
            help: ArgumentHelp("The baseline script (default: bench/duckdb_funnel.py here or above the funnel binary).", valueName: "path"))
    var duckdbScript: String?

    @Flag(name: .customLong("no-duckdb"), help: "Skip the DuckDB baseline.")
    var noDuckDB = false

    func validate() throws {
        guard events >= 1 else { throw ValidationError("--events must be at least 1") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    /// The benchmarked funnel.
    static var spec: EventFunnelSpec {
        EventFunnelSpec(steps: EventStreamGenerator.steps.map { EventMatcher(events: [$0]) }, order: .ordered,
                        windowMicros: 3_600_000_000,
                        exclusions: [FunnelExclusion(matcher: EventMatcher(events: [EventStreamGenerator.exclusion]),
                                                     fromStep: 1, toStep: EventStreamGenerator.steps.count)],
                        breakdown: FunnelBreakdown(property: "platform", source: .event, attribution: .firstTouch))
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        let root = URL(fileURLWithPath: keep ?? "/tmp/funnel-bench-query-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { if keep == nil { try? FileManager.default.removeItem(at: root) } }
        let csv = root.appending(path: "events.csv")

        say("generating \(events) events (seed \(seed)) into \(csv.path) ...")
        var started = Date()
        let generated = try EventStreamGenerator(events: events, seed: seed).writeCSV(to: csv.path)
        say(String(format: "  %d events of %d users, %d MB CSV (%.1f s)", generated.events, generated.users,
                   generated.bytes / 1_000_000, Date().timeIntervalSince(started)))

        let (admin, settings) = try database.connect(logger: logger)
        let name = "funnel_bench_query_\(getpid())"
        try admin.execute("create database \(try admin.quoteIdentifier(name))")
        defer {
            if keep == nil { _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)") }
        }
        let scratch = ConnectionSettings(conninfo: BenchComputeCommand.conninfo(settings.conninfo, database: name),
                                         searchPath: FunnelSchema.searchPath)
        let connection = try scratch.connect(logger: logger)
        try Migrator().migrate(connection, logger: logger)

        started = Date()
        let loaded = try BenchEventLoader.load(csv: csv, summary: generated, into: connection)
        say(String(format: "PostgreSQL load (untimed for the comparison): %d rows by COPY, keys, ANALYZE in %.2f s", loaded,
                   Date().timeIntervalSince(started)))
        _ = BenchComputeCommand.checkpoint(connection)

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
        let differing = figures.printBeside(baseline?.figures)
        if keep != nil { say("kept: \(root.path) and database \(name)") }
        if baseline != nil {
            if differing.isEmpty {
                say("every figure agrees")
            } else {
                throw CommandFailure("funnel and DuckDB differ on: \(differing.joined(separator: "; "))")
            }
        }
    }

    private func say(_ line: String) { BenchDailyCommand.say(line) }

    /// Runs bench/duckdb_funnel.py; nil (after saying why) when it cannot run.
    private func runBaseline(csv: URL) throws -> BenchFunnelBaseline? {
        guard let script = BenchDailyCommand.findScript(duckdbScript, relative: "bench/duckdb_funnel.py") else {
            say("DuckDB baseline: skipped: bench/duckdb_funnel.py not found here or above the funnel binary (give --duckdb-script PATH)")
            return nil
        }
        let repository = script.deletingLastPathComponent().deletingLastPathComponent()
        let candidates = duckdbPython.map { [$0] }
            ?? [".venv-bench/bin/python", repository.appending(path: ".venv-bench/bin/python").path, "python3"]
        guard let python = candidates.first(where: BenchDailyCommand.hasDuckDB) else {
            say("DuckDB baseline: skipped: no Python with the duckdb module (tried \(candidates.joined(separator: ", "))); "
                + "run 'make bench-deps', then --duckdb-python .venv-bench/bin/python")
            return nil
        }
        say("DuckDB baseline: \(python) \(script.path) \(csv.path) ...")
        let outcome = try BenchDailyCommand.runProcess(python, [script.path, csv.path, "--runs", String(runs)], captureError: false)
        guard outcome.status == 0 else { throw CommandFailure("the DuckDB baseline failed (exit \(outcome.status))") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(BenchFunnelBaseline.self, from: outcome.output)
        } catch {
            throw CommandFailure("the DuckDB baseline printed what is not its JSON: \(error)")
        }
    }
}
