import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelPipeline
public import Logging
public import PostgresClient

extension IngestBenchmark {
    /// What `funnel bench ingest` measures.
    public struct Options: Sendable {
        /// Installs generated for the daily path's part.
        public var events: Int
        public var historyUsers: Int
        public var historyDays: Int
        public var historyWorkers: Int
        /// How many times the limit and the history's import run, in turn, each on fresh databases.
        public var historyRuns: Int
        public var noHistory: Bool
        public var noDaily: Bool
        /// Python with the duckdb module (default: .venv-bench/bin/python, then python3).
        public var duckdbPython: String?
        public var noDuckDB: Bool
        /// Keep the generated files and the scratch databases.
        public var keep: Bool
        /// Rows of a vendor export imported beside the same rows as funnel NDJSON (0: that part is skipped).
        public var vendorRows = 0
        /// The vendor of that part: `appsflyer` (CSV) or `segment` (NDJSON).
        public var vendor = "appsflyer"

        public init(events: Int, historyUsers: Int, historyDays: Int, historyWorkers: Int, historyRuns: Int = 1, noHistory: Bool,
                    noDaily: Bool, duckdbPython: String?, noDuckDB: Bool, keep: Bool) {
            self.events = events
            self.historyUsers = historyUsers
            self.historyDays = historyDays
            self.historyWorkers = historyWorkers
            self.historyRuns = historyRuns
            self.noHistory = noHistory
            self.noDaily = noDaily
            self.duckdbPython = duckdbPython
            self.noDuckDB = noDuckDB
            self.keep = keep
        }
    }

    /// `funnel bench ingest`: a generated history imported beside plain COPY into an unlogged,
    /// unindexed table (the limit) and DuckDB loading the same files; and the daily path beside
    /// plain COPY into a copy of raw_installs. Each part uses fresh databases beside the one
    /// `selectedSettings` gives, dropped afterwards unless `keep`.
    public static func measure(_ options: Options, logger: Logger, selectedSettings: () throws -> ConnectionSettings) throws {
        let settings = try selectedSettings()
        let events = options.events, keep = options.keep
        let directory = "/tmp/funnel-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(atPath: directory) } }
        let admin = try settings.connect(logger: logger)
        var databases: [String] = []
        func drop(_ name: String) throws {
            try admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)")
        }
        defer {
            if !keep { for name in databases { _ = try? drop(name) } }
        }
        /// A fresh database on the server, migrated unless `migrated` is false.
        func scratch(_ suffix: String, migrated: Bool = true) throws -> ConnectionSettings {
            let name = "funnel_bench_\(getpid())_\(suffix)"
            try admin.execute("create database \(try admin.quoteIdentifier(name))")
            databases.append(name)
            let scratch = ConnectionSettings(conninfo: ScratchDatabase.conninfo(settings.conninfo, database: name),
                                             searchPath: settings.searchPath)
            if migrated { try Migrator().migrate(try scratch.connect(logger: logger), logger: logger) }
            return scratch
        }

        if !options.noHistory {
            let historyDirectory = directory + "/history"
            DailyBenchmark.say("history: generating \(options.historyUsers) users x \(options.historyDays) days in \(historyDirectory) ...")
            let generated = try HistoryIngestBenchmark.generate(users: options.historyUsers, days: options.historyDays, directory: historyDirectory)
            let files = generated.files.map { historyDirectory + "/" + $0.name }
            var results: [HistoryIngestBenchmark.Result] = []
            for run in 1...max(options.historyRuns, 1) {
                if options.historyRuns > 1 { DailyBenchmark.say("  run \(run) of \(options.historyRuns):") }
                let before = databases.count
                let result = try HistoryIngestBenchmark.run(files: files, limit: try scratch("limit\(run)", migrated: false),
                                                            funnel: try scratch("history\(run)"), workers: options.historyWorkers, logger: logger)
                results.append(result)
                report(result)
                // Each run's databases go before the next, so that runs do not fill the disk.
                if !keep {
                    for name in databases[before...] { try drop(name) }
                    databases.removeSubrange(before...)
                }
            }
            if results.count > 1 {
                DailyBenchmark.say("  ratio to the limit, run by run (each import right after its limit): "
                                   + results.map { String(format: "%.2f", $0.ratio) }.joined(separator: ", ")
                                   + String(format: "; median %.2f (target >= 0.50)", SpendResponse.median(results.map(\.ratio))))
            }
            if !options.noDuckDB {
                try duckDBLoad(historyDirectory, funnelSeconds: SpendResponse.median(results.map(\.importSeconds)), python: options.duckdbPython)
            }
        }

        if !options.noDaily {
            DailyBenchmark.say("daily path: generating \(events) installs in \(directory) ...")
            let (csv, copyText) = try IngestBenchmark.prepare(rows: events, directory: directory)
            let result = try IngestBenchmark.run(rows: events, csv: csv, copyText: copyText, settings: try scratch("daily"), logger: logger)
            DailyBenchmark.say("""
                  file: \(result.rowsGenerated) rows, \(result.fileBytes / 1_000_000) MB CSV; \(result.baselineRows) valid, \(result.rejected) rejected
                  baseline (COPY FROM STDIN into raw_installs' twin, same PK and indexes): \(result.baselineRows) rows in \(String(format: "%.2f", result.baselineSeconds)) s = \(Int(result.baselineRowsPerSecond)) rows/s
                  funnel ingest, daily merge (checksum, parse, validate, stage, merge, bookkeeping): \(result.ingestRows) rows in \(String(format: "%.2f", result.ingestSeconds)) s = \(Int(result.ingestRowsPerSecond)) rows/s
                  ratio: \(String(format: "%.2f", result.ratio)) (target >= 0.70)
                  peak memory (VmHWM): \(result.peakMemoryBytes / 1_048_576) MB (target < 150 MB)
                """)
        }
        if options.vendorRows > 0 {
            let segment = options.vendor == "segment"
            let firebase = options.vendor == "firebase"
            let amplitude = options.vendor == "amplitude"
            let described = segment ? "Segment calls" : firebase ? "Firebase BigQuery export rows"
                : amplitude ? "an Amplitude export file" : "an AppsFlyer raw-data export"
            DailyBenchmark.say("vendor import: generating \(described) of \(options.vendorRows) rows and its funnel NDJSON in \(directory) ...")
            let files = segment ? try VendorIngestBenchmark.prepareSegment(rows: options.vendorRows, directory: directory)
                : firebase ? try VendorIngestBenchmark.prepareFirebase(rows: options.vendorRows, directory: directory)
                : amplitude ? try VendorIngestBenchmark.prepareAmplitude(rows: options.vendorRows, directory: directory)
                : try VendorIngestBenchmark.prepare(rows: options.vendorRows, directory: directory)
            let result = try VendorIngestBenchmark.run(rows: options.vendorRows, vendor: files.vendor, plain: files.plain,
                                                       source: options.vendor,
                                                       plainDatabase: try scratch("plain"), vendorDatabase: try scratch("vendor"),
                                                       logger: logger)
            DailyBenchmark.say(String(format: """
                  file: %d rows, %d MB %@ as the vendor writes it
                  funnel ingest of the same rows as funnel NDJSON: %d stored in %.2f s = %.0f rows/s
                  funnel ingest --source %@ of the export: %d stored in %.2f s = %.0f rows/s
                  ratio: %.2f (target >= 0.80)
                """, result.rows, result.vendorBytes / 1_000_000, segment || firebase || amplitude ? "NDJSON" : "CSV", result.plainLoaded, result.plainSeconds,
                result.plainRowsPerSecond, options.vendor, result.vendorLoaded, result.vendorSeconds, result.vendorRowsPerSecond, result.ratio))
        }
        if keep { print("kept: \(directory) and databases \(databases.joined(separator: ", "))") }
    }

    /// Prints one run of the limit and the history's import.
    private static func report(_ result: HistoryIngestBenchmark.Result) {
        DailyBenchmark.say(String(format: "  files: %d, %d MB CSV, %d rows", result.files, result.fileBytes / 1_000_000, result.rowsInFiles))
        DailyBenchmark.say(String(format: "  limit (COPY FROM STDIN of each file as it is into an unlogged, unindexed all-text table, one stream): "
                                     + "%.2f s = %.0f rows/s", result.limitSeconds, result.limitRowsPerSecond))
        DailyBenchmark.say(String(format: "  funnel ingest (%d workers; checksum, parse, validate, stage, bulk merge, indexes, bookkeeping): "
                                     + "%d rows read, %d stored in %.2f s = %.0f rows/s",
                                     result.importWorkers, result.rowsRead, result.rowsLoaded, result.importSeconds, result.importRowsPerSecond))
        DailyBenchmark.say(String(format: "  ratio to the limit: %.2f (target >= 0.50); peak memory (VmHWM) %d MB (target < 150 MB)",
                                     result.ratio, result.peakMemoryBytes / 1_048_576))
        DailyBenchmark.say("  load average (1 min) at the limit's start, the import's start and its end: "
                           + result.loadAverages.map { String(format: "%.2f", $0) }.joined(separator: ", "))
    }

    /// DuckDB loading the same files (bench/duckdb_baseline.py --load-only), beside funnel's import.
    private static func duckDBLoad(_ directory: String, funnelSeconds: Double, python duckdbPython: String?) throws {
        guard let script = DailyBenchmark.findScript(nil) else {
            DailyBenchmark.say("  DuckDB: skipped: bench/duckdb_baseline.py not found here or above the funnel binary")
            return
        }
        let repository = script.deletingLastPathComponent().deletingLastPathComponent()
        let candidates = duckdbPython.map { [$0] }
            ?? [".venv-bench/bin/python", repository.appending(path: ".venv-bench/bin/python").path, "python3"]
        guard let python = candidates.first(where: DailyBenchmark.hasDuckDB) else {
            DailyBenchmark.say("  DuckDB: skipped: no Python with the duckdb module (run 'make bench-deps')")
            return
        }
        let outcome = try DailyBenchmark.runProcess(python, [script.path, directory, "--load-only"], captureError: true)
        guard outcome.status == 0,
              let document = try JSONSerialization.jsonObject(with: outcome.output) as? [String: Any],
              let seconds = (document["load_seconds"] as? NSNumber)?.doubleValue,
              let rows = (document["rows_loaded"] as? NSNumber)?.intValue else {
            throw CommandFailure("the DuckDB load failed (exit \(outcome.status))")
        }
        DailyBenchmark.say(String(format: "  DuckDB %@ loading the same files (typed, in memory, no dedup): %d rows in %.2f s = %.0f rows/s; "
                                     + "funnel's import took %.2fx DuckDB's time",
                                     "\(document["duckdb_version"] ?? "?")", rows, seconds, Double(rows) / max(seconds, 1e-9),
                                     funnelSeconds / max(seconds, 1e-9)))
    }
}
