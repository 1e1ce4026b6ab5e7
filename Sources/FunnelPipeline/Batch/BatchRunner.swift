public import Foundation
import FunnelCompute
public import FunnelCore
public import FunnelIngest
import FunnelReports
public import Logging
public import PostgresClient

/// Where `funnel run` takes files from and puts things.
public struct BatchOptions: Sendable {
    public var inbox: URL
    public var reports: URL
    public var archive: URL?
    /// Where refused files go, each with `NAME.reason.txt` beside it (default `INBOX/quarantine`).
    public var quarantine: URL
    /// The one app to report on; nil reports every app.
    public var app: String?
    public var settleSeconds: Double
    public var recheckSeconds: Double
    public var workers: Int
    public var leaseSeconds: Double
    public var retry: RetryPolicy
    /// How the inbox's files are read: the `[ingest]` settings with the command line's over them.
    public var reading = IngestSettings()
    /// `--kind`: the kind of every file (else each file's rule or name).
    public var kind: EventKind?
    /// `--assume-tz`: the zone of every zone-less timestamp.
    public var assumeTimeZone: String?
    /// How far a compressed file may expand before it is refused.
    public var expansion = ExpansionLimit()
    /// `--retry`: load again the files loaded before with rejected rows.
    public var retryRejected = false

    public init(inbox: URL, reports: URL, archive: URL?, quarantine: URL, app: String?, settleSeconds: Double,
                recheckSeconds: Double, workers: Int, leaseSeconds: Double, retry: RetryPolicy) {
        self.inbox = inbox
        self.reports = reports
        self.archive = archive
        self.quarantine = quarantine
        self.app = app
        self.settleSeconds = settleSeconds
        self.recheckSeconds = recheckSeconds
        self.workers = workers
        self.leaseSeconds = leaseSeconds
        self.retry = retry
    }
}

/// Another `funnel run` holds the batch lock on this database.
struct BatchBusy: Error {}

/// The scheduled batch job: under the session advisory lock `funnel.run`, migrates, ingests
/// what is new in the inbox, computes incrementally, writes the reports into a dated folder and
/// repoints `latest`, then archives the loaded files. Every step is idempotent, so a run killed
/// anywhere is completed by the next one; transient database errors are retried per step.
public struct BatchRunner {
    static let lockKey = AdvisoryLockKey("funnel.run")

    let settings: ConnectionSettings
    let options: BatchOptions
    let configuration: ConfigurationInForce
    let reportWriter: any RunReportWriter
    let stop: StopFlag
    let logger: Logger
    private let retries = RetryCount()

    public init(settings: ConnectionSettings, options: BatchOptions, configuration: ConfigurationInForce,
         reportWriter: any RunReportWriter, stop: StopFlag, logger: Logger) {
        self.settings = settings
        self.options = options
        self.configuration = configuration
        self.reportWriter = reportWriter
        self.stop = stop
        self.logger = logger
    }

    /// Runs the job. Its failures come as `CommandFailure`s that say what to do next: another run
    /// holding the lock exits `ExitStatus.busy`; a database that stayed unreachable, a refused
    /// migration or a database error exit 1.
    public func run() throws -> BatchSummary {
        do {
            return try runSteps()
        } catch is BatchBusy {
            throw CommandFailure("another funnel run holds the lock on this database; nothing done (the next scheduled run takes over)",
                                 exitStatus: ExitStatus.busy)
        } catch let error as RetriesExhausted {
            throw CommandFailure("cannot reach PostgreSQL at \(settings.redactedDescription): \(error). "
                + "Check that the server runs; the next run retries")
        } catch let error as MigrationError {
            throw CommandFailure("\(error)")
        } catch let error as PostgresError {
            throw CommandFailure("database error: \(error)")
        }
    }

    private func runSteps() throws -> BatchSummary {
        var summary = BatchSummary(status: "completed", startedAt: Date(), inbox: options.inbox.path)
        let session = LockedSession(settings: settings, logger: logger)
        defer { session.close() }
        let folders = ReportFolders(root: options.reports)
        _ = try step("lock") { try session.ensure() }
        folders.removeLeftovers()
        logger.info("run started", metadata: ["run.inbox": .string(options.inbox.path), "run.reports": .string(options.reports.path)])
        _ = try step("migrate") { try Migrator().migrate(try session.ensure(), logger: logger) }

        let excluded = [options.reports, options.quarantine] + (options.archive.map { [$0] } ?? [])
        let scan = try InboxScanner(inbox: options.inbox, excluded: excluded, settleSeconds: options.settleSeconds,
                                    recheckSeconds: options.recheckSeconds).scan()
        summary.stillWriting = scan.stillWriting
        for path in scan.stillWriting {
            logger.info("file still being written, left for a later run", metadata: ["file.path": .string(path)])
        }
        if scan.ready.isEmpty, try step("check", { try nothingToPublish(session.ensure(), folders) }) {
            if folders.latestSummary() == nil { summary.reportsNote = "nothing is loaded yet, so no report was written" }
            return finish(&summary, status: "nothing_new")
        }

        var reports: [IngestRun.FileReport] = []
        let lanes = DailyLanes(files: scan.ready)
        var ingest = IngestRun(settings: settings, kind: options.kind, assumeTimeZone: options.assumeTimeZone, workers: options.workers,
                               workerOptions: WorkerOptions(leaseSeconds: options.leaseSeconds, pollSeconds: 0.2,
                                                            expansion: options.expansion))
        ingest.reading = options.reading
        ingest.retry = options.retryRejected
        if !scan.ready.isEmpty {
            logger.info("ingesting", metadata: ["run.files": "\(scan.ready.count)"])
            reports = try step("ingest") {
                // Retake the lock first when a lost connection released it.
                try session.ensure()
                return try ingest.run(files: lanes.events, stop: stop, progress: IngestProgress(), logger: logger)
            }
        }
        // The telemetry loads beside the metrics when there are metrics to compute: when the
        // event files brought nothing new, it loads now, so a run over files already loaded still
        // finds nothing new.
        let besideMetrics = !lanes.telemetry.isEmpty && reports.contains { $0.status == .loaded }
        if !lanes.telemetry.isEmpty && !besideMetrics && !stop.isSet {
            reports += try step("ingest") {
                try session.ensure()
                return try ingest.run(files: lanes.telemetry, stop: stop, progress: IngestProgress(), logger: logger)
            }
        }
        if stop.isSet { throw CommandFailure("interrupted: the next run finishes the job (files not loaded stay in the inbox)") }
        if !besideMetrics {
            record(reports, into: &summary)
            if summary.totals.loaded == 0, try step("check", { try nothingToPublish(session.ensure(), folders) }) {
                try archive(reports, &summary)
                try quarantine(reports, &summary)
                return finish(&summary, status: summary.totals.failed > 0 ? "completed_with_errors" : "nothing_new")
            }
        }

        summary.configuration = BatchSummary.Configuration(source: configuration.source)
        if let change = try step("compute", { try configuration.change(on: session.ensure()) }) {
            summary.configuration?.changes = change.differences
            logger.warning("\(change.warning)")
        }
        let job = ComputeJob(configuration: configuration.configuration, source: configuration.source, logger: logger)
        let telemetry = TelemetryLoad(files: besideMetrics ? lanes.telemetry : [],
                                      ingest: ingest.withWorkers(1),
                                      stop: stop, logger: logger)
        let loadTelemetry: (@Sendable () throws -> Void)? = besideMetrics ? { @Sendable in try telemetry.load() } : nil
        let previousRun = try step("compute") { try lastComputeRun(session.ensure()) }
        let result = try step("compute") {
            try ComputeLanes(job: job).run(try session.ensure(), options: ComputeOptions(waitForLock: true), alongside: settings,
                                           beforeFriction: loadTelemetry)
        }
        summary.compute = result?.compute
        if besideMetrics {
            reports += telemetry.reports
            record(reports, into: &summary)
            try step("compute") { try DailyLanes.markTelemetryFolded(session.ensure(), telemetry.reports) }
        }
        summary.computeRunId = try step("compute") { try lastComputeRun(session.ensure()) }
        if stop.isSet { throw CommandFailure("interrupted after compute: the next run writes the reports") }

        if summary.totals.failed > 0 { summary.status = "completed_with_errors" }
        let apps = try step("report") { try computedApps(session.ensure()) }
        if let app = options.app, !apps.contains(app) {
            try archive(reports, &summary)
            try quarantine(reports, &summary)
            throw CommandFailure.usage("--app \(app): no computed data for this app; "
                + (apps.isEmpty ? "no app has computed data yet" : "apps with data: \(apps.joined(separator: ", "))"))
        }
        // A report is published only when it would differ from `latest`: the metrics or the
        // friction were computed anew, or `latest` is older than the last compute (one run by
        // hand, say). Otherwise `latest` stays, and is recorded as current through this compute.
        let computedWork = summary.compute.map { $0.cohortDaysRebuilt > 0 || $0.usersRebuilt > 0 || $0.configurationChanged } ?? false
        let frictionWork = result?.friction.map { $0.sessionsScanned > 0 || $0.filesFolded > 0 } ?? false
        let latestIsStale = (folders.currentThrough() ?? -1) < previousRun
        guard !apps.isEmpty, computedWork || frictionWork || latestIsStale else {
            summary.reportsNote = apps.isEmpty
                ? "no report written: nothing is computed yet (no file was loaded)"
                : "no report written: nothing new was computed, latest is current"
            if !apps.isEmpty, let runID = summary.computeRunId { try folders.markCurrent(through: runID) }
            try archive(reports, &summary)
            try quarantine(reports, &summary)
            return finish(&summary, status: summary.totals.failed > 0 ? "completed_with_errors" : "nothing_new")
        }
        summary.apps = options.app.map { [$0] } ?? apps
        let started = summary.startedAt
        var published = summary
        let folder = try folders.publish(at: started) { partial, final in
            published.reportsDirectory = final.path
            published.finishedAt = Date()
            published.retries = retries.value
            try reportWriter.writeReports(into: partial, summary: published)
        }
        summary.reportsDirectory = folder.path
        logger.info("reports written", metadata: ["run.reports_dir": .string(folder.path)])
        try archive(reports, &summary)
        try quarantine(reports, &summary)
        return finish(&summary, status: summary.status)
    }

    /// Runs one step under the retry policy, reconnecting (and retaking the lock) as needed.
    private func step<T>(_ name: String, _ body: () throws -> T) throws -> T {
        try options.retry.run(name, logger: logger) { attempt in
            if attempt > 1 { retries.add() }
            return try body()
        }
    }

    /// True when a compute would publish nothing new: nothing waits to be computed, and either
    /// `latest` reflects the last compute or nothing was ever computed (no report to write).
    private func nothingToPublish(_ connection: PostgresConnection, _ folders: ReportFolders) throws -> Bool {
        guard try !ComputeLedger(connection).hasPendingWork() else { return false }
        guard let current = folders.currentThrough() else { return try computedApps(connection).isEmpty }
        return current >= (try lastComputeRun(connection))
    }

    /// The apps with computed data, most installs first.
    private func computedApps(_ connection: PostgresConnection) throws -> [String] {
        try ReportReader(connection: connection).apps()
    }

    private func lastComputeRun(_ connection: PostgresConnection) throws -> Int64 {
        try ComputeLedger(connection).lastRunID()
    }

    private func record(_ reports: [IngestRun.FileReport], into summary: inout BatchSummary) {
        for report in reports {
            summary.files.append(BatchSummary.File(
                path: report.path, kind: report.kind, status: report.status.rawValue,
                rowsLoaded: report.counts.rowsLoaded, duplicates: report.counts.duplicates,
                rejected: report.counts.rejected, message: report.message))
            summary.totals.files += 1
            switch report.status {
            case .loaded: summary.totals.loaded += 1
            case .skipped, .loadedElsewhere: summary.totals.skipped += 1
            default:
                summary.totals.failed += 1
                logger.error("file not loaded", metadata: ["file.path": .string(report.path), "file.status": .string(report.status.rawValue),
                                                           "file.message": .string(report.message ?? "")])
            }
            summary.totals.rowsLoaded += report.counts.rowsLoaded
            summary.totals.duplicates += report.counts.duplicates
            summary.totals.rejected += report.counts.rejected
        }
    }

    private func archive(_ reports: [IngestRun.FileReport], _ summary: inout BatchSummary) throws {
        guard let root = options.archive else { return }
        let archive = Archive(root: root, inbox: options.inbox)
        for (index, report) in reports.enumerated() where report.status.isLoaded {
            summary.files[index].archivedTo = try archive.move(report.path, at: summary.startedAt)
        }
    }

    /// Moves the refused files out of the inbox into `QUARANTINE/YYYY-MM-DD/`, each with
    /// `NAME.reason.txt` beside it, so they stop failing every later run.
    private func quarantine(_ reports: [IngestRun.FileReport], _ summary: inout BatchSummary) throws {
        let quarantine = Archive(root: options.quarantine, inbox: options.inbox)
        for report in reports where report.status == .refused {
            guard FileManager.default.fileExists(atPath: report.path),
                  let slot = summary.files.firstIndex(where: { $0.path == report.path }) else { continue }
            let destination = try quarantine.move(report.path, at: summary.startedAt)
            let reason = """
                \(URL(fileURLWithPath: report.path).lastPathComponent) was refused by funnel run at \(ISO8601DateFormatter().string(from: summary.startedAt)):
                \(report.message ?? "refused")

                Fix the file (or export it again), or the options it needs (an option of funnel run such \
                as --assume-tz or --max-expansion, or the same setting in [ingest] of funnel.toml), and \
                put it back into the inbox (\(options.inbox.path)); the next run loads it.

                """
            try Data(reason.utf8).write(to: URL(fileURLWithPath: destination + ".reason.txt"), options: .atomic)
            summary.files[slot].quarantinedTo = destination
            logger.warning("file refused, moved to the quarantine", metadata: [
                "file.path": .string(report.path), "file.quarantined_to": .string(destination),
            ])
        }
    }

    private func finish(_ summary: inout BatchSummary, status: String) -> BatchSummary {
        summary.status = status
        summary.retries = retries.value
        let finished = Date()
        summary.finishedAt = finished
        summary.seconds = finished.timeIntervalSince(summary.startedAt)
        logger.info("run finished", metadata: [
            "run.status": .string(status), "run.files_loaded": "\(summary.totals.loaded)",
            "run.rows_loaded": "\(summary.totals.rowsLoaded)", "run.seconds": .string(String(format: "%.2f", summary.seconds ?? 0)),
        ])
        return summary
    }
}

/// The run's own database session: it holds the `funnel.run` advisory lock. After a lost
/// connection it reconnects and retakes the lock (the server released it with the old session);
/// if another run took it meanwhile, this run stops as busy.
final class LockedSession {
    private let settings: ConnectionSettings
    private let logger: Logger
    private var connection: PostgresConnection?

    init(settings: ConnectionSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// The locked session, reconnected first when the connection broke.
    @discardableResult
    func ensure() throws -> PostgresConnection {
        if let connection {
            if connection.isHealthy, (try? connection.query("select 1")) != nil { return connection }
            self.connection = nil
            logger.info("database connection lost; reconnecting")
        }
        let fresh = try settings.connect(logger: logger)
        guard try fresh.tryAdvisoryLock(BatchRunner.lockKey) else { throw BatchBusy() }
        connection = fresh
        return fresh
    }

    func close() {
        if let connection, connection.isHealthy { _ = try? connection.advisoryUnlock(BatchRunner.lockKey) }
        connection = nil
    }
}

/// How many step attempts were retries (the runner's steps run one at a time on one thread).
private final class RetryCount {
    private(set) var value = 0
    func add() { value += 1 }
}
