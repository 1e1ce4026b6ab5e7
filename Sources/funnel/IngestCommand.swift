import ArgumentParser
import Dispatch
import Foundation
import FunnelCore
import FunnelIngest
import FunnelPipeline
import Logging
import PostgresClient

/// `funnel ingest`: enqueues files and loads them with N workers, then prints a summary.
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Load input files (CSV, NDJSON, .gz) or directories of them into the database.",
        discussion: """
        Each file is loaded exactly once (by content checksum: the same content again is skipped) \
        and each event once (by kind, app_id, event_id), even across files. Rows that fail \
        validation are kept in funnel.ingest_rejects (see --show-rejects); a file that is not what \
        it claims to be, or whose rows would mostly be rejected (more than --max-reject-share, \
        such as timestamps without a zone: --assume-tz), is refused whole and nothing of it is \
        loaded. A file loaded with rejected rows loads again with --retry once the options are \
        fixed; what it stored is not stored twice. The [ingest] table of the configuration file \
        sets zones per app and per file name. Directories are read recursively (hidden files skipped). \
        Each run reports the rows it loaded itself: a file another run loaded at the same time is \
        "loaded_elsewhere", naming that run's worker. Exit status: 0 when every file was loaded \
        (here or elsewhere) or skipped, 1 when one was refused or failed, 2 on a usage error.
        """
    )

    @Argument(help: ArgumentHelp("Files or directories to load.", valueName: "path"))
    var paths: [String]

    @Option(help: "Parallel workers, each with its own database connection.")
    var workers = 2

    @Option(help: ArgumentHelp("Seconds a worker's claim on a file lasts without renewal; a crashed run's file is taken over after it.", valueName: "seconds"))
    var lease: Double = 60

    @Option(name: .customLong("bulk-rows"),
            help: ArgumentHelp("A kind's rows in one file from which the bulk merge may be taken (docs/inputs.md, \"Large loads\").", valueName: "rows"))
    var bulkRows = 50_000

    @Option(name: .customLong("split-copy-mb"),
            help: ArgumentHelp("The size from which a file of one event kind is COPYed by two streams at once and takes the bulk merge (docs/inputs.md, \"Large loads\"); 0: every such file.", valueName: "MB"))
    var splitCopyMB = 64

    @Flag(help: "After the summary, list the rejected rows (file:line: reason) of the files given.")
    var showRejects = false

    @Flag(help: "Print one JSON document instead of the human summary.")
    var json = false

    @Option(help: ArgumentHelp("Configuration file (TOML) whose [ingest] table sets zones, file rules and limits; default: as for funnel compute.", valueName: "file"))
    var config: String?

    @Flag(help: "Load again the files already loaded with rejected rows, with the current options: what they stored is not stored twice.")
    var retry = false

    @Option(help: ArgumentHelp("The vendor whose export every file is, read as the vendor ships it (\(VendorSource.names); docs/imports.md); default: the file's [[ingest.files]] rule's source, else told by a CSV header where only one vendor writes it.", valueName: "vendor"))
    var source: String?

    @Flag(name: .customLong("revenue-minor-units"),
          help: "A PostHog export's revenue is in minor units (cents): divide it by the currency's minor units (docs/imports.md).")
    var revenueMinorUnits = false

    @Option(name: .customLong("app-id"),
            help: ArgumentHelp("The app id an Amplitude export's rows are read as (its rows name only the project): the bundle id an MMP's export names the app by (docs/imports.md).", valueName: "app"))
    var appID: String?

    @OptionGroup var reading: FileReadingOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard workers >= 1, workers <= 64 else { throw ValidationError("--workers must be between 1 and 64") }
        guard lease >= 1 else { throw ValidationError("--lease must be at least 1 second") }
        guard bulkRows >= 1 else { throw ValidationError("--bulk-rows must be at least 1") }
        guard splitCopyMB >= 0 else { throw ValidationError("--split-copy-mb must be 0 or more") }
        if let source {
            guard VendorSource(rawValue: source) != nil else {
                throw ValidationError("--source \(source): not a vendor funnel reads; use one of \(VendorSource.names)")
            }
            guard reading.kind == nil else {
                throw ValidationError("--source and --kind: a vendor's export holds several kinds, each row's told by the vendor; give one of them")
            }
        }
        if let appID {
            guard source == nil || source == VendorSource.amplitude.rawValue else {
                throw ValidationError("--app-id: only an Amplitude export's rows lack their app; \(source ?? "") rows name theirs")
            }
            guard !appID.isEmpty else { throw ValidationError("--app-id: empty") }
        }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.ingest")
        let ingestSettings = try ConfigurationInForce.load(path: config).configuration.ingest
        let files = try IngestJob.files(under: paths)
        let settings = try database.connectMigrated(logger: logger).1
        let stop = StopFlag()
        let signals = SignalWatcher(stop: stop, logger: logger)
        defer { signals.cancel() }
        let progress = IngestProgress()
        let ticker = ProgressLine(progress: progress, totalFiles: files.count)
        ticker.start()
        defer { ticker.stop() }
        // On a terminal the progress line and the summary say what the workers' per-file log
        // lines would (loading, loaded, refused and why): those show with --verbose only.
        var workerLogger = logger
        if ticker.enabled, !logging.verbose { workerLogger.logLevel = .error }
        var job = IngestJob(settings: settings, kind: reading.eventKind, assumeTimeZone: reading.assumeTimeZone,
                            workers: workers, workerOptions: WorkerOptions(leaseSeconds: lease, pollSeconds: 0.2,
                                                                         expansion: reading.expansion.limit(ingestSettings),
                                                                         bulkMinimumRows: bulkRows,
                                                                         splitCopyBytes: Int64(splitCopyMB) << 20))
        job.reading = reading.reading(ingestSettings)
        job.retry = retry
        job.source = source.flatMap(VendorSource.init(rawValue:))
        job.revenueMinorUnits = revenueMinorUnits
        job.appID = appID
        let outcome = try job.run(files: files, stop: stop, progress: progress, listRejects: showRejects, logger: workerLogger)
        ticker.stop()
        let reports = outcome.reports
        let rejectLines = outcome.rejects
        if json {
            try printJSON(IngestSummary(reports: reports, rejects: showRejects ? rejectLines : nil))
        } else {
            printHuman(reports, rejectLines: rejectLines)
        }
        if stop.isSet {
            let left = reports.filter { $0.status == .queued || $0.status == .loading }.count
            throw CommandFailure("interrupted: \(left) file(s) not finished (\(progress.progress.bytesLeft / 1_000_000) MB) are back on the queue "
                + "(funnel worker or a new funnel ingest loads them)")
        }
        if reports.contains(where: { !$0.status.isLoaded }) {
            throw ExitCode(ExitStatus.failure)
        }
    }

    /// Where each physical line of a file went, e.g. `1002 lines: 1 header, 1000 rows, 1 blank`.
    static func lineAccount(_ counts: FileLoadCounts) -> String {
        let lines = counts.lines
        var parts = ["\(lines.header) header", "\(counts.rowsRead) rows"]
        if lines.blank > 0 { parts.append("\(lines.blank) blank") }
        if lines.continuation > 0 { parts.append("\(lines.continuation) inside quoted fields") }
        return "\(lines.lines) lines: " + parts.joined(separator: ", ")
    }

    private func printHuman(_ reports: [IngestRun.FileReport], rejectLines: [(path: String, line: Int64, reason: String)]) {
        let width = min(60, reports.map(\.path.count).max() ?? 0)
        let statusWidth = max(8, reports.map(\.status.rawValue.count).max() ?? 0)
        // A vendor's name (rudderstack) is longer than any kind's.
        let kindWidth = max(9, reports.map { ($0.kind ?? "-").count }.max() ?? 0)
        for report in reports {
            let counts = report.counts
            var line = report.path.padding(toLength: max(width, report.path.count), withPad: " ", startingAt: 0)
            line += "  \((report.kind ?? "-").padding(toLength: kindWidth, withPad: " ", startingAt: 0))"
            line += " \(report.status.rawValue.padding(toLength: statusWidth, withPad: " ", startingAt: 0))"
            if report.status == .loaded {
                line += " \(counts.rowsLoaded) rows, \(counts.duplicates) duplicates, \(counts.rejected) rejected"
                line += " (\(Self.lineAccount(counts)))"
                if let message = report.message { line += "\n  note: \(message)" }
            } else if let message = report.message {
                line += " " + FileMessage.withoutPath(message, report.path)
            }
            print(line)
        }
        let totals = IngestSummary.Totals(reports)
        let byStatus = Dictionary(grouping: reports, by: \.status.rawValue).map { "\($0.value.count) \($0.key)" }.sorted()
        print("total: \(reports.count) file(s) (\(byStatus.joined(separator: ", "))): \(totals.rowsLoaded) rows loaded, "
            + "\(totals.duplicates) duplicates skipped, \(totals.rejected) rows rejected")
        if !rejectLines.isEmpty {
            print("rejected rows:")
            for reject in rejectLines { print("  \(reject.path):\(reject.line): \(reject.reason)") }
        } else if totals.rejected > 0 {
            let ids = reports.filter { $0.counts.rejected > 0 }.compactMap(\.fileID).map(String.init).joined(separator: ",")
            print("rejected rows are kept with their line and reason: rerun with --show-rejects, or query\n"
                + "  select path, line, reason, raw from funnel.ingest_rejects where file_id in (\(ids)) order by file_id, line;")
        }
    }
}

/// The `--json` document of `funnel ingest` (docs/inputs.md, "The ingest summary"). The counts and
/// totals are what this run loaded; files loaded by another run count zero.
struct IngestSummary: Encodable {
    struct File: Encodable {
        let path: String
        let kind: String?
        let status: String
        let rowsRead: Int
        let rowsLoaded: Int
        let duplicates: Int
        let rejected: Int
        /// Physical lines: lines = headerLines + rowsRead + blankLines + continuationLines.
        let lines: Int64
        let headerLines: Int64
        let blankLines: Int64
        let continuationLines: Int64
        let fileId: Int64?
        let message: String?
        /// "this run" or "another run" for a file whose content is loaded; null otherwise.
        let loadedBy: String?
    }

    struct Totals: Encodable {
        let files: Int
        let rowsLoaded: Int
        let duplicates: Int
        let rejected: Int

        init(_ reports: [IngestRun.FileReport]) {
            files = reports.count
            rowsLoaded = reports.reduce(0) { $0 + $1.counts.rowsLoaded }
            duplicates = reports.reduce(0) { $0 + $1.counts.duplicates }
            rejected = reports.reduce(0) { $0 + $1.counts.rejected }
        }
    }

    struct Reject: Encodable {
        let path: String
        let line: Int64
        let reason: String
    }

    let files: [File]
    let totals: Totals
    let rejects: [Reject]?

    init(reports: [IngestRun.FileReport], rejects: [(path: String, line: Int64, reason: String)]?) {
        files = reports.map {
            File(path: $0.path, kind: $0.kind, status: $0.status.rawValue, rowsRead: $0.counts.rowsRead,
                 rowsLoaded: $0.counts.rowsLoaded, duplicates: $0.counts.duplicates, rejected: $0.counts.rejected,
                 lines: $0.counts.lines.lines, headerLines: $0.counts.lines.header, blankLines: $0.counts.lines.blank,
                 continuationLines: $0.counts.lines.continuation, fileId: $0.fileID, message: $0.message,
                 loadedBy: $0.loadedBy?.rawValue)
        }
        totals = Totals(reports)
        self.rejects = rejects?.map { Reject(path: $0.path, line: $0.line, reason: $0.reason) }
    }
}

/// The progress line on a terminal: rows read, rows/s, files done, the share done and the time
/// left (IngestProgress.line), rewritten in place on
/// stderr every half second. Off the terminal, the workers' log lines say the same.
final class ProgressLine: @unchecked Sendable {
    // Safe: `running` is only touched while holding `lock`; `progress` is itself thread-safe.
    private let progress: IngestProgress
    private let totalFiles: Int
    private let lock = NSLock()
    private var running = false
    private let finished = DispatchSemaphore(value: 0)
    let enabled = isatty(STDERR_FILENO) == 1

    init(progress: IngestProgress, totalFiles: Int) {
        self.progress = progress
        self.totalFiles = totalFiles
    }

    func start() {
        guard enabled else { return }
        lock.withLock { running = true }
        let thread = Thread { [self] in
            let started = Date()
            while lock.withLock({ running }) {
                TerminalStatusLine.shared.show(IngestProgress.line(progress.progress, totalFiles: totalFiles,
                                                                   elapsed: Date().timeIntervalSince(started)))
                Thread.sleep(forTimeInterval: 0.5)
            }
            TerminalStatusLine.shared.clear()
            finished.signal()
        }
        thread.start()
    }

    func stop() {
        guard enabled, lock.withLock({ running }) else { return }
        lock.withLock { running = false }
        finished.wait()
    }
}
