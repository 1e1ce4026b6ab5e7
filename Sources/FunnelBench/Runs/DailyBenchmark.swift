import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelIngest
import FunnelPipeline
import FunnelReports
import FunnelSQL
public import Logging
public import PostgresClient

/// `funnel bench daily`: the daily incremental run (one new day: ingest, compute, report) as
/// `funnel run` does it, beside an analyst loading every CSV into DuckDB and running the same
/// queries (`bench/duckdb_baseline.py`), in one run. Prints every figure as it goes.
public struct DailyBenchmark {
    public var users: Int
    public var days: Int
    public var seed: UInt64
    public var keep: Bool
    public var duckdbPython: String?
    public var duckdbScript: String?
    public var noDuckDB: Bool
    public var duckdbRuns: Int

    public init(users: Int, days: Int, seed: UInt64, keep: Bool, duckdbPython: String?, duckdbScript: String?,
                noDuckDB: Bool, duckdbRuns: Int) {
        self.users = users
        self.days = days
        self.seed = seed
        self.keep = keep
        self.duckdbPython = duckdbPython
        self.duckdbScript = duckdbScript
        self.noDuckDB = noDuckDB
        self.duckdbRuns = duckdbRuns
    }

    /// Runs the benchmark; `connect` gives a connection to the selected database and its
    /// settings (the scratch database is made beside it) once the data is generated.
    public func run(logger: Logger, connect: () throws -> (PostgresConnection, ConnectionSettings)) throws {
        let root = URL(fileURLWithPath: "/tmp/funnel-bench-daily-\(getpid())")
        let generated = root.appending(path: "generated")
        let history = root.appending(path: "history")
        let lastDay = root.appending(path: "day")
        let reports = root.appending(path: "reports")
        for directory in [history, lastDay, reports] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        defer { if !keep { try? FileManager.default.removeItem(at: root) } }

        let options = GeneratorOptions(outputDirectory: generated.path, users: users, days: days, seed: seed)
        Self.say("generating \(users) users x \(days) days into \(generated.path) ...")
        var started = Date()
        let generation: GenerationResult
        do {
            generation = try Generator.run(options)
        } catch let error as GeneratorError {
            throw CommandFailure(error.description)
        }
        Self.say(String(format: "  %d rows, %d MB CSV in %d files (%.1f s)", generation.totalRows, generation.totalBytes / 1_000_000,
                     generation.files.count, Date().timeIntervalSince(started)))

        guard let cutoff = Self.date(options.startDate, adding: days - 1) else { throw CommandFailure("bad start date \(options.startDate)") }
        started = Date()
        let split = try Self.split(generation.files, from: generated, cutoff: cutoff, history: history, lastDay: lastDay)
        Self.say(String(format: "  split at %@ (UTC, by each kind's time field): history %d rows, last day %d rows (%.1f s)",
                     cutoff, split.historyRows, split.lastDayRows, Date().timeIntervalSince(started)))

        let (admin, settings) = try connect()
        let name = "funnel_bench_daily_\(getpid())"
        try admin.execute("create database \(try admin.quoteIdentifier(name))")
        defer {
            if !keep { _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)") }
        }
        let scratch = ConnectionSettings(conninfo: ScratchDatabase.conninfo(settings.conninfo, database: name),
                                         searchPath: FunnelSchema.searchPath)
        // On a Citus coordinator the scratch database is a Citus one too (docs/citus.md).
        let citusWorkers = try ScratchDatabase.extendCitus(admin, scratch: scratch, name: name)
        defer { if !keep { ScratchDatabase.dropOnWorkers(citusWorkers, name: name) } }
        if !citusWorkers.isEmpty { Self.say("  on Citus: the scratch database on the coordinator and \(citusWorkers.count) worker(s)") }
        let connection = try scratch.connect(logger: logger)
        try Migrator().migrate(connection, logger: logger)
        let ingest = IngestRun(settings: scratch, kind: nil, assumeTimeZone: nil, workers: 2)
        let job = ComputeJob(configuration: FunnelConfiguration(), logger: logger)

        Self.say("history (untimed; for context):")
        started = Date()
        let historyRows = try Self.load(split.historyFiles, with: ingest, logger: logger).rows
        let historyIngestSeconds = Date().timeIntervalSince(started)
        Self.say(String(format: "  ingest:   %8.2f s  (%d rows loaded from %d files, %.0f rows/s)", historyIngestSeconds, historyRows,
                     split.historyFiles.count, Double(historyRows) / historyIngestSeconds))
        // The history's compute as `funnel compute --full` runs it: friction beside the metrics.
        let historyServer = CPUUsage.Server(serving: connection)
        let historyCPUAtStart = CPUUsage.Reading(historyServer)
        started = Date()
        let historyCompute = try Self.compute(job, connection, full: true, alongside: scratch)
        let fullSeconds = Date().timeIntervalSince(started)
        let fullCPU = CPUUsage.Reading(historyServer).since(historyCPUAtStart)
        Self.say(String(format: "  compute --full: %.2f s  (%@, %d cohort days, %d users; metrics %.2f s beside friction %.2f s%@)",
                        fullSeconds, historyCompute.compute.mode, historyCompute.compute.cohortDaysRebuilt,
                        historyCompute.compute.usersRebuilt, historyCompute.compute.seconds,
                        historyCompute.friction.map(\.seconds) ?? 0,
                        fullCPU.map { String(format: "; %.2f s of processor time: server %.2f s + funnel %.2f s", $0.total, $0.server, $0.own) } ?? ""))
        started = Date()
        try connection.execute("vacuum analyze")
        let prepared = ScratchDatabase.checkpointAfterPreparation(connection)
        Self.say(String(format: "  vacuum analyze: %.2f s  (%@ between two daily runs)", Date().timeIntervalSince(started), prepared))

        Self.say("daily run (timed): the last day \(cutoff) as funnel run does it")
        let server = CPUUsage.Server(serving: connection)
        let cpuAtStart = CPUUsage.Reading(server)
        let runStarted = Date()
        // As funnel run does it (DailyLanes): the event files first, then the metrics beside the
        // telemetry's load and friction.
        let lanes = DailyLanes(files: split.lastDayFiles)
        let events = try Self.load(lanes.events, with: ingest, logger: logger)
        let ingestSeconds = Date().timeIntervalSince(runStarted)
        let cpuAfterIngest = CPUUsage.Reading(server)
        started = Date()
        let telemetry = TelemetryLoad(files: lanes.telemetry,
                                      ingest: IngestRun(settings: scratch, kind: nil, assumeTimeZone: nil, workers: 1),
                                      stop: StopFlag(), logger: logger)
        let daily = try Self.compute(job, connection, alongside: scratch, beforeFriction: { try telemetry.load() })
        let telemetryRows = try Self.checkLoaded(telemetry.reports)
        try DailyLanes.markTelemetryFolded(connection, telemetry.reports)
        let computeSeconds = Date().timeIntervalSince(started)
        let cpuAfterCompute = CPUUsage.Reading(server)
        started = Date()
        var summary = BatchSummary(status: "completed", startedAt: runStarted, inbox: lastDay.path)
        summary.compute = daily.compute
        summary.totals.files = events.reports.count + telemetry.reports.count
        summary.totals.loaded = summary.totals.files
        summary.totals.rowsLoaded = events.rows + telemetryRows
        try FullReportWriter(settings: scratch).writeReports(into: reports, summary: summary)
        let reportSeconds = Date().timeIntervalSince(started)
        let dailySeconds = Date().timeIntervalSince(runStarted)
        let cpuAtEnd = CPUUsage.Reading(server)
        let runCPU = cpuAtEnd.since(cpuAtStart)
        // A part's processor time, for its line (empty when the server's is not known).
        func processorTime(_ from: CPUUsage.Reading, _ to: CPUUsage.Reading) -> String {
            to.since(from).map { String(format: "; %.2f s of processor time", $0.total) } ?? ""
        }
        let reportFiles = (try? FileManager.default.contentsOfDirectory(atPath: reports.path).count) ?? 0
        let frictionSeconds = daily.friction.map(\.seconds) ?? 0
        Self.say(String(format: "  ingest:   %8.2f s  (%d rows loaded from %d event files%@)", ingestSeconds, events.rows,
                        events.reports.count, processorTime(cpuAtStart, cpuAfterIngest)))
        Self.say(String(format: "  compute:  %8.2f s  (%@: %d cohort days, %d users; metrics %.2f s beside telemetry ingest %.2f s "
                        + "(%d rows from %d files) then friction %.2f s%@)",
                        computeSeconds, daily.compute.mode, daily.compute.cohortDaysRebuilt, daily.compute.usersRebuilt,
                        daily.compute.seconds, telemetry.seconds, telemetryRows, telemetry.reports.count, frictionSeconds,
                        processorTime(cpuAfterIngest, cpuAfterCompute)))
        Self.say(String(format: "  report:   %8.2f s  (%d files: text, CSV, HTML, JSON, run.json%@)", reportSeconds, reportFiles,
                        processorTime(cpuAfterCompute, cpuAtEnd)))
        Self.say(String(format: "  total:    %8.2f s", dailySeconds))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if let runCPU {
            Self.say(String(format: "  cpu:      %8.2f s  (server %.2f s + funnel %.2f s: %.2f of %d cores busy on average; "
                                + "the same work on %d cores kept busy: %.2f s)",
                            runCPU.total, runCPU.server, runCPU.own, runCPU.total / dailySeconds, cores, cores,
                            runCPU.total / Double(cores)))
        } else {
            Self.say(String(format: "  cpu:      funnel %.2f s  (the server's is not known: it runs on another machine, or its processes could not be read)",
                            cpuAtEnd.own - cpuAtStart.own))
        }
        if !daily.compute.failedChecks.isEmpty {
            Self.say("warning: checks with offending rows: \(daily.compute.failedChecks.joined(separator: ", "))")
        }

        let ours = try Headline(connection.query(SQLCatalog.text("bench/daily_headline.sql"))[0])
        var baseline: Baseline?
        if noDuckDB {
            Self.say("DuckDB baseline: skipped (--no-duckdb)")
        } else {
            // The timed run's dirty pages written out first, so the baseline does not share the
            // disk with the checkpointer.
            _ = ScratchDatabase.checkpoint(connection)
            baseline = try runBaseline(directory: generated)
        }
        if let baseline {
            Self.say(String(format: "DuckDB baseline (%@, %d threads), the fastest of %d runs: load %d rows %.2f s + queries %.2f s = %.2f s  (process wall time %.2f s with Python start and import)",
                            baseline.duckdbVersion, baseline.threads, duckdbRuns, baseline.rowsLoaded, baseline.loadSeconds,
                            baseline.querySeconds, baseline.totalSeconds, baseline.wallSeconds))
            let ratio = baseline.totalSeconds / dailySeconds
            Self.say(String(format: "daily run %.2f s vs DuckDB %.2f s = %.1fx %@ (target: several times faster)", dailySeconds,
                            baseline.totalSeconds, ratio >= 1 ? ratio : 1 / ratio, ratio >= 1 ? "faster" : "slower"))
            if let metrics = baseline.metricsQuerySeconds, let friction = baseline.frictionQuerySeconds {
                // The daily run's friction runs beside its metrics and cannot be timed apart, so
                // DuckDB without friction is held against the whole daily run.
                let withoutFriction = baseline.loadSeconds + metrics
                Self.say(String(format: "  DuckDB's queries: metrics %.2f s, onboarding friction %.2f s; without friction DuckDB takes "
                                + "%.2f s, %.1fx the whole daily run (friction included)", metrics, friction, withoutFriction,
                                withoutFriction / dailySeconds))
            }
            if let runCPU {
                Self.say(String(format: "CPU: the daily run %.2f s (friction included) vs the DuckDB process %.2f s = %.1fx less",
                                runCPU.total, baseline.cpuSeconds, baseline.cpuSeconds / runCPU.total))
            }
            // DuckDB's queries cover the history and the last day; funnel's full compute the history.
            Self.say(String(format: "full compute of the history %.2f s vs DuckDB's queries from scratch %.2f s = %.2fx DuckDB's time "
                            + "(target: at most 2x)%@", fullSeconds, baseline.querySeconds, fullSeconds / baseline.querySeconds,
                            fullCPU.map { String(format: "; processor time %.2f s", $0.total) } ?? ""))
            Self.say("the same numbers? (DuckDB from scratch over every file, funnel incrementally)")
        } else {
            Self.say("headline figures:")
        }
        let differing = ours.printBeside(baseline?.headline)
        if baseline != nil {
            Self.say(differing.isEmpty ? "  every figure agrees"
                                       : "warning: funnel and DuckDB differ on: \(differing.joined(separator: "; "))")
        }
        if keep { Self.say("kept: \(root.path) and database \(name)") }
    }

    // MARK: Steps

    /// Prints a line at once, so progress shows (and keeps its order with the baseline's stderr)
    /// when the output goes to a pipe or a file.
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// The files of each half of the split, with their row counts.
    struct Split {
        var historyFiles: [String] = []
        var lastDayFiles: [String] = []
        var historyRows = 0
        var lastDayRows = 0
    }

    /// Splits every generated file; a half without rows is not kept (nothing to ingest).
    static func split(_ files: [GeneratedFile], from directory: URL, cutoff: String, history: URL, lastDay: URL) throws -> Split {
        var split = Split()
        for file in files {
            guard let kind = EventKind(rawValue: file.kind), let splitter = DaySplitter(kind: kind, cutoffDate: cutoff) else {
                throw CommandFailure("generated file \(file.name) has an unknown kind \(file.kind)")
            }
            let before = history.appending(path: file.name).path
            let onOrAfter = lastDay.appending(path: file.name).path
            let counts = try splitter.split(directory.appending(path: file.name).path, before: before, onOrAfter: onOrAfter)
            for (path, rows) in [(before, counts.before), (onOrAfter, counts.onOrAfter)] where rows == 0 {
                try FileManager.default.removeItem(atPath: path)
            }
            if counts.before > 0 { split.historyFiles.append(before) }
            if counts.onOrAfter > 0 { split.lastDayFiles.append(onOrAfter) }
            split.historyRows += counts.before
            split.lastDayRows += counts.onOrAfter
        }
        return split
    }

    /// Ingests files with the real ingest path; fails when one is not loaded.
    static func load(_ files: [String], with ingest: IngestRun, logger: Logger) throws -> (reports: [IngestRun.FileReport], rows: Int) {
        let reports = try ingest.run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: logger)
        return (reports, try checkLoaded(reports))
    }

    /// The rows the files loaded; fails when one is not loaded.
    static func checkLoaded(_ reports: [IngestRun.FileReport]) throws -> Int {
        if let failed = reports.first(where: { $0.status != .loaded }) {
            throw CommandFailure("ingest of \(failed.path) ended \(failed.status.rawValue): \(failed.message ?? "")")
        }
        return reports.reduce(0) { $0 + $1.counts.rowsLoaded }
    }

    /// One compute as `funnel compute` and `funnel run` do it: metrics and friction (side by side
    /// on a second connection to `alongside` when given, as they run it, after `beforeFriction`
    /// there); `full` rebuilds everything, as `funnel compute --full` does.
    static func compute(_ job: ComputeJob, _ connection: PostgresConnection, full: Bool = false,
                        alongside: ConnectionSettings? = nil,
                        beforeFriction: (@Sendable () throws -> Void)? = nil) throws -> ComputeJob.Result {
        guard let result = try ComputeLanes(job: job).run(connection, options: ComputeOptions(full: full, waitForLock: true),
                                                          alongside: alongside, beforeFriction: beforeFriction) else {
            throw CommandFailure("another compute holds the lock on the scratch database")
        }
        return result
    }

    /// `YYYY-MM-DD` plus some days.
    static func date(_ text: String, adding days: Int) -> String? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        guard let date = formatter.date(from: text) else { return nil }
        return formatter.string(from: date.addingTimeInterval(Double(days) * 86_400))
    }

    // MARK: DuckDB

    /// What bench/duckdb_baseline.py prints, and the wall time of its process.
    struct Baseline: Decodable {
        var duckdbVersion: String
        var threads: Int
        var loadSeconds: Double
        var querySeconds: Double
        /// The queries' split: the metrics, then onboarding friction (nil from an older script).
        var metricsQuerySeconds: Double?
        var frictionQuerySeconds: Double?
        var totalSeconds: Double
        var rowsLoaded: Int
        var headline: Headline
        var wallSeconds: Double = 0
        /// The process's CPU time, Python's start and imports included.
        var cpuSeconds: Double = 0

        enum CodingKeys: String, CodingKey {
            case duckdbVersion, threads, loadSeconds, querySeconds, metricsQuerySeconds, frictionQuerySeconds, totalSeconds,
                 rowsLoaded, headline
        }
    }

    /// Runs the baseline; nil (after saying why and how to get it) when it cannot run.
    private func runBaseline(directory: URL) throws -> Baseline? {
        guard let script = Self.findScript(duckdbScript) else {
            Self.say("DuckDB baseline: skipped: bench/duckdb_baseline.py not found here or above the funnel binary (give --duckdb-script PATH)")
            return nil
        }
        let repository = script.deletingLastPathComponent().deletingLastPathComponent()
        let candidates = duckdbPython.map { [$0] }
            ?? [".venv-bench/bin/python", repository.appending(path: ".venv-bench/bin/python").path, "python3"]
        guard let python = candidates.first(where: Self.hasDuckDB) else {
            Self.say("DuckDB baseline: skipped: no Python with the duckdb module (tried \(candidates.joined(separator: ", "))); "
                + "run 'make bench-deps', then --duckdb-python .venv-bench/bin/python")
            return nil
        }
        Self.say("DuckDB baseline: \(python) \(script.path) over all \(directory.path) ...")
        let rates = String(decoding: try JSONSerialization.data(withJSONObject: ReferenceRates.usdPerUnit, options: [.sortedKeys]),
                           as: UTF8.self)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var fastest: Baseline?
        for run in 1...duckdbRuns {
            let started = Date()
            let childCPUBefore = CPUUsage.processSeconds(children: true)
            let outcome = try Self.runProcess(python, [script.path, directory.path, "--rates", rates], captureError: false)
            let wallSeconds = Date().timeIntervalSince(started)
            guard outcome.status == 0 else { throw CommandFailure("the DuckDB baseline failed (exit \(outcome.status))") }
            var baseline = try decoder.decode(Baseline.self, from: outcome.output)
            baseline.wallSeconds = wallSeconds
            baseline.cpuSeconds = CPUUsage.processSeconds(children: true) - childCPUBefore
            Self.say(String(format: "  DuckDB run %d of %d: %.2f s  (the process: %.2f s, %.2f s of CPU)", run, duckdbRuns,
                            baseline.totalSeconds, baseline.wallSeconds, baseline.cpuSeconds))
            if baseline.totalSeconds < fastest?.totalSeconds ?? .infinity { fastest = baseline }
        }
        return fastest
    }

    static func findScript(_ given: String?, relative: String = "bench/duckdb_baseline.py") -> URL? {
        if let given { return FileManager.default.fileExists(atPath: given) ? URL(fileURLWithPath: given) : nil }
        var places = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        if var directory = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            for _ in 0..<6 {
                places.append(directory)
                directory = directory.deletingLastPathComponent()
            }
        }
        return places.map { $0.appending(path: relative) }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    static func hasDuckDB(_ python: String) -> Bool { hasModule(python, "duckdb") }

    /// Whether `python` runs and imports `module`.
    static func hasModule(_ python: String, _ module: String) -> Bool {
        guard python.contains("/") ? FileManager.default.isExecutableFile(atPath: python) : true else { return false }
        return (try? runProcess(python, ["-c", "import \(module)"], captureError: true).status) == 0
    }

    /// Runs a program (a path, or a name looked up on PATH) and collects its standard output;
    /// its standard error goes to ours unless captured (and dropped).
    static func runProcess(_ program: String, _ arguments: [String], captureError: Bool) throws -> (status: Int32, output: Data) {
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = captureError ? FileHandle.nullDevice : FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }
}

/// A few headline figures, from funnel's marts or from the DuckDB baseline, to show side by side.
struct Headline: Decodable {
    var users: Int?
    var d1RetentionAll: Double?
    var d7RetentionAll: Double?
    var ltvD7All: Double?
    var cpiAll: Double?
    var kFactorAll: Double?
    var firstPurchaseAll: Int?
    var frictionEpisodes: Int?
    var frictionFlagged: Int?
    /// The flagged (screen / friction type) that costs the most users, its users hit and lost.
    var frictionTop: String?
    var frictionTopUsersHit: Int?
    var frictionTopUsersLost: Double?

    init(_ row: PostgresRow) throws {
        users = try row.decode(Int?.self, column: "users")
        d1RetentionAll = try row.decode(Double?.self, column: "d1_retention_all")
        d7RetentionAll = try row.decode(Double?.self, column: "d7_retention_all")
        ltvD7All = try row.decode(Double?.self, column: "ltv_d7_all")
        cpiAll = try row.decode(Double?.self, column: "cpi_all")
        kFactorAll = try row.decode(Double?.self, column: "k_factor_all")
        firstPurchaseAll = try row.decode(Int?.self, column: "first_purchase_all")
        frictionEpisodes = try row.decode(Int?.self, column: "friction_episodes")
        frictionFlagged = try row.decode(Int?.self, column: "friction_flagged")
        frictionTop = try row.decode(String?.self, column: "friction_top")
        frictionTopUsersHit = try row.decode(Int?.self, column: "friction_top_users_hit")
        frictionTopUsersLost = try row.decode(Double?.self, column: "friction_top_users_lost")
    }

    /// Prints one line per figure: funnel's, then DuckDB's when there is a baseline. Returns the
    /// labels of the figures that differ as printed.
    func printBeside(_ other: Headline?) -> [String] {
        var differing: [String] = []
        func line(_ label: String, _ ours: String, _ theirs: String?) {
            if let theirs, theirs != ours { differing.append(label) }
            let padded = label.padding(toLength: 36, withPad: " ", startingAt: 0)
            DailyBenchmark.say("  \(padded) funnel \(ours.padding(toLength: max(12, ours.count), withPad: " ", startingAt: 0))"
                + (theirs.map { " DuckDB \($0)" } ?? ""))
        }
        func count(_ value: Int?) -> String { value.map(String.init) ?? "-" }
        func percent(_ value: Double?) -> String { value.map { String(format: "%.2f%%", $0 * 100) } ?? "-" }
        func money(_ value: Double?) -> String { value.map { String(format: "$%.4f", $0) } ?? "-" }
        func plain(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "-" }
        line("users (cohort members)", count(users), other.map { count($0.users) })
        line("D1 retention, classic, all", percent(d1RetentionAll), other.map { percent($0.d1RetentionAll) })
        line("D7 retention, classic, all", percent(d7RetentionAll), other.map { percent($0.d7RetentionAll) })
        line("LTV D7, all", money(ltvD7All), other.map { money($0.ltvD7All) })
        line("CPI, all paid networks", money(cpiAll), other.map { money($0.cpiAll) })
        line("k-factor, all", plain(kFactorAll), other.map { plain($0.kFactorAll) })
        line("funnel: first purchase, all", count(firstPurchaseAll), other.map { count($0.firstPurchaseAll) })
        line("friction: episodes", count(frictionEpisodes), other.map { count($0.frictionEpisodes) })
        line("friction: flagged (screen, type)", count(frictionFlagged), other.map { count($0.frictionFlagged) })
        line("friction: first-ranked", frictionTop ?? "-", other.map { $0.frictionTop ?? "-" })
        line("friction: its users hit", count(frictionTopUsersHit), other.map { count($0.frictionTopUsersHit) })
        line("friction: its users lost", plain(frictionTopUsersLost), other.map { plain($0.frictionTopUsersLost) })
        return differing
    }
}
