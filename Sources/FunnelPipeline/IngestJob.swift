public import FunnelCore
public import FunnelIngest
public import Logging
public import PostgresClient

/// `funnel ingest` as one job: the paths expanded into input files, the files queued and loaded
/// by N workers until each is final, and the rejected rows of the files asked for. Every
/// problem comes as a `CommandFailure` that says what to do next.
public struct IngestJob: Sendable {
    public let settings: ConnectionSettings
    public let kind: EventKind?
    public let assumeTimeZone: String?
    public let workers: Int
    public let workerOptions: WorkerOptions
    /// The `[ingest]` settings with the command line's over them.
    public var reading = IngestSettings()
    /// `--retry`: load again the files loaded with rejected rows.
    public var retry = false
    /// `--source`: the vendor whose export every file is (docs/imports.md).
    public var source: VendorSource?
    /// `--revenue-minor-units`: the vendor exports' revenue is in minor units.
    public var revenueMinorUnits = false
    /// `--app-id`: the app id of an Amplitude export's rows.
    public var appID: String?

    public init(settings: ConnectionSettings, kind: EventKind?, assumeTimeZone: String?, workers: Int, workerOptions: WorkerOptions) {
        self.settings = settings
        self.kind = kind
        self.assumeTimeZone = assumeTimeZone
        self.workers = workers
        self.workerOptions = workerOptions
    }

    /// What the job loaded: one report per file, and the rejected rows (file, line, reason) when
    /// they were asked for.
    public struct Outcome: Sendable {
        public let reports: [IngestRun.FileReport]
        public let rejects: [(path: String, line: Int64, reason: String)]
    }

    /// The input files under `paths` (directories read recursively, hidden files skipped); a
    /// missing path or no input file at all is a usage error.
    public static func files(under paths: [String]) throws -> [String] {
        let files: [String]
        do {
            files = try InputDiscovery.expand(paths)
        } catch let missing as InputDiscovery.Missing {
            throw CommandFailure.usage("\(missing.description)")
        }
        if files.isEmpty {
            throw CommandFailure.usage("no input files (.csv, .ndjson, .jsonl, .json, optionally .gz) under \(paths.joined(separator: " "))")
        }
        return files
    }

    /// Loads `files`; with `listRejects`, also reads back up to 1,000 rejected rows of the files
    /// that have any (and of the files another run loaded).
    public func run(files: [String], stop: StopFlag, progress: IngestProgress, listRejects: Bool, logger: Logger) throws -> Outcome {
        var run = IngestRun(settings: settings, kind: kind, assumeTimeZone: assumeTimeZone, workers: workers, workerOptions: workerOptions)
        run.reading = reading
        run.retry = retry
        run.source = source
        run.revenueMinorUnits = revenueMinorUnits
        run.appID = appID
        let reports: [IngestRun.FileReport]
        do {
            reports = try run.run(files: files, stop: stop, progress: progress, logger: logger)
        } catch let error as PostgresError where error.isConnectionFailure {
            throw CommandFailure("cannot reach PostgreSQL at \(settings.redactedDescription): \(error.message)")
        }
        var rejects: [(path: String, line: Int64, reason: String)] = []
        let rejectedFileIDs = reports.filter { $0.counts.rejected > 0 || ($0.loadedBy == .anotherRun && listRejects) }.compactMap(\.fileID)
        if listRejects, !rejectedFileIDs.isEmpty {
            rejects = try IngestQueue(connection: try settings.connect(logger: logger)).rejects(of: rejectedFileIDs, limit: 1000)
        }
        return Outcome(reports: reports, rejects: rejects)
    }
}
