import ArgumentParser
import FunnelBench
import Foundation
import FunnelCompute
import FunnelGenerate
import FunnelIngest
import Logging
import PostgresClient

/// `funnel bench ingest`: a history's import beside PostgreSQL's limit and DuckDB, and the daily
/// path beside plain COPY, in one run.
struct BenchIngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest throughput and peak memory: a history beside COPY's limit and DuckDB, the daily path beside plain COPY.",
        discussion: """
        History: generates a data set as 'funnel generate' does (--history-users x --history-days, \
        every kind), COPYs each file as it is into an unlogged, unindexed all-text table (the limit), \
        imports the same files with 'funnel ingest' into an empty database (the loader picks the bulk \
        merge by itself), and loads them into DuckDB (bench/duckdb_baseline.py --load-only; 'make \
        bench-deps' sets it up, else it is skipped). Daily path: generates --events installs as CSV \
        (about 1% invalid rows) and loads the valid rows by plain COPY FROM STDIN into a copy of \
        raw_installs with the same primary key and indexes (baseline), then by the whole ingest path \
        taking the daily merge. Each part uses fresh databases on the configured server, dropped \
        afterwards. Prints rows/s, ratios and this process's peak memory.
        """
    )

    @Option(help: "Installs to generate for the daily path's part.")
    var events = 10_000_000

    @Option(name: .customLong("history-users"), help: "Users of the generated history (300000 x 90 days is about 11M rows).")
    var historyUsers = 300_000

    @Option(name: .customLong("history-days"), help: "Days of the generated history.")
    var historyDays = 90

    @Option(name: .customLong("history-workers"), help: "Workers of the history's import.")
    var historyWorkers = 2

    @Flag(name: .customLong("no-history"), help: "Skip the history part.")
    var noHistory = false

    @Flag(name: .customLong("no-daily"), help: "Skip the daily path's part.")
    var noDaily = false

    @Option(name: .customLong("duckdb-python"),
            help: ArgumentHelp("Python interpreter with the duckdb module (default: .venv-bench/bin/python, then python3).", valueName: "path"))
    var duckdbPython: String?

    @Flag(name: .customLong("no-duckdb"), help: "Skip the DuckDB load.")
    var noDuckDB = false

    @Flag(help: "Keep the generated files and the benchmark databases.")
    var keep = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard events >= 1000 else { throw ValidationError("--events must be at least 1000") }
        guard historyWorkers >= 1 else { throw ValidationError("--history-workers must be at least 1") }
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        let settings = try database.settings(logger: logger)
        let directory = "/tmp/funnel-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(atPath: directory) } }
        let admin = try settings.connect(logger: logger)
        var databases: [String] = []
        defer {
            if !keep { for name in databases { _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)") } }
        }
        /// A fresh database on the server, migrated unless `migrated` is false.
        func scratch(_ suffix: String, migrated: Bool = true) throws -> ConnectionSettings {
            let name = "funnel_bench_\(getpid())_\(suffix)"
            try admin.execute("create database \(try admin.quoteIdentifier(name))")
            databases.append(name)
            let scratch = ConnectionSettings(conninfo: BenchComputeCommand.conninfo(settings.conninfo, database: name),
                                             searchPath: settings.searchPath)
            if migrated { try Migrator().migrate(try scratch.connect(logger: logger), logger: logger) }
            return scratch
        }

        if !noHistory {
            let historyDirectory = directory + "/history"
            BenchDailyCommand.say("history: generating \(historyUsers) users x \(historyDays) days in \(historyDirectory) ...")
            let generated = try HistoryIngestBenchmark.generate(users: historyUsers, days: historyDays, directory: historyDirectory)
            let files = generated.files.map { historyDirectory + "/" + $0.name }
            let result = try HistoryIngestBenchmark.run(files: files, limit: try scratch("limit", migrated: false),
                                                        funnel: try scratch("history"), workers: historyWorkers, logger: logger)
            BenchDailyCommand.say(String(format: "  files: %d, %d MB CSV, %d rows", result.files, result.fileBytes / 1_000_000, result.rowsInFiles))
            BenchDailyCommand.say(String(format: "  limit (COPY FROM STDIN of each file as it is into an unlogged, unindexed all-text table, one stream): "
                                         + "%.2f s = %.0f rows/s", result.limitSeconds, result.limitRowsPerSecond))
            BenchDailyCommand.say(String(format: "  funnel ingest (%d workers; checksum, parse, validate, stage, bulk merge, indexes, bookkeeping): "
                                         + "%d rows read, %d stored in %.2f s = %.0f rows/s",
                                         result.importWorkers, result.rowsRead, result.rowsLoaded, result.importSeconds, result.importRowsPerSecond))
            BenchDailyCommand.say(String(format: "  ratio to the limit: %.2f (target >= 0.50); peak memory (VmHWM) %d MB (target < 150 MB)",
                                         result.ratio, result.peakMemoryBytes / 1_048_576))
            if !noDuckDB { try duckDBLoad(historyDirectory, funnelSeconds: result.importSeconds) }
        }

        if !noDaily {
            BenchDailyCommand.say("daily path: generating \(events) installs in \(directory) ...")
            let (csv, copyText) = try IngestBenchmark.prepare(rows: events, directory: directory)
            let result = try IngestBenchmark.run(rows: events, csv: csv, copyText: copyText, settings: try scratch("daily"), logger: logger)
            BenchDailyCommand.say("""
                  file: \(result.rowsGenerated) rows, \(result.fileBytes / 1_000_000) MB CSV; \(result.baselineRows) valid, \(result.rejected) rejected
                  baseline (COPY FROM STDIN into raw_installs' twin, same PK and indexes): \(result.baselineRows) rows in \(String(format: "%.2f", result.baselineSeconds)) s = \(Int(result.baselineRowsPerSecond)) rows/s
                  funnel ingest, daily merge (checksum, parse, validate, stage, merge, bookkeeping): \(result.ingestRows) rows in \(String(format: "%.2f", result.ingestSeconds)) s = \(Int(result.ingestRowsPerSecond)) rows/s
                  ratio: \(String(format: "%.2f", result.ratio)) (target >= 0.70)
                  peak memory (VmHWM): \(result.peakMemoryBytes / 1_048_576) MB (target < 150 MB)
                """)
        }
        if keep { print("kept: \(directory) and databases \(databases.joined(separator: ", "))") }
    }

    /// DuckDB loading the same files (bench/duckdb_baseline.py --load-only), beside funnel's import.
    private func duckDBLoad(_ directory: String, funnelSeconds: Double) throws {
        guard let script = BenchDailyCommand.findScript(nil) else {
            BenchDailyCommand.say("  DuckDB: skipped: bench/duckdb_baseline.py not found here or above the funnel binary")
            return
        }
        let repository = script.deletingLastPathComponent().deletingLastPathComponent()
        let candidates = duckdbPython.map { [$0] }
            ?? [".venv-bench/bin/python", repository.appending(path: ".venv-bench/bin/python").path, "python3"]
        guard let python = candidates.first(where: BenchDailyCommand.hasDuckDB) else {
            BenchDailyCommand.say("  DuckDB: skipped: no Python with the duckdb module (run 'make bench-deps')")
            return
        }
        let outcome = try BenchDailyCommand.runProcess(python, [script.path, directory, "--load-only"], captureError: true)
        guard outcome.status == 0,
              let document = try JSONSerialization.jsonObject(with: outcome.output) as? [String: Any],
              let seconds = (document["load_seconds"] as? NSNumber)?.doubleValue,
              let rows = (document["rows_loaded"] as? NSNumber)?.intValue else {
            throw CommandFailure("the DuckDB load failed (exit \(outcome.status))")
        }
        BenchDailyCommand.say(String(format: "  DuckDB %@ loading the same files (typed, in memory, no dedup): %d rows in %.2f s = %.0f rows/s; "
                                     + "funnel's import took %.2fx DuckDB's time",
                                     "\(document["duckdb_version"] ?? "?")", rows, seconds, Double(rows) / max(seconds, 1e-9),
                                     funnelSeconds / max(seconds, 1e-9)))
    }
}
