import Foundation
import FunnelCompute
import FunnelCore
public import FunnelIngest
public import Logging
public import PostgresClient

/// The two lanes of a daily run (`funnel run` and `funnel bench daily` alike). The metrics read
/// every kind of file but telemetry (`ux`); friction reads telemetry, steps and opens. So the
/// event files load first, with every worker; then the metrics compute on the run's connection
/// while the second connection loads the telemetry and then runs friction (`ComputeLanes`'s
/// `beforeFriction`). On two cores the telemetry's load, its largest file, no longer holds up the
/// metrics, and friction still starts only once every file is in.
public struct DailyLanes: Sendable {
    /// Every file but telemetry (and files whose kind the name does not tell: the loader decides).
    public let events: [String]
    /// The `ux` files.
    public let telemetry: [String]

    public init(files: [String]) {
        var events: [String] = []
        var telemetry: [String] = []
        for file in files {
            if EventKind(fileName: file) == .ux { telemetry.append(file) } else { events.append(file) }
        }
        self.events = events
        self.telemetry = telemetry
    }

    /// Records the telemetry files a lane loaded as folded in for the metrics, once friction has
    /// read them (`telemetry_folded.sql`): the metrics read nothing from them, and left unfolded
    /// they would make the next run with nothing new compute again.
    public static func markTelemetryFolded(_ connection: PostgresConnection, _ reports: [IngestRun.FileReport]) throws {
        try ComputeLedger(connection).markTelemetryFolded(reports.filter { $0.status == .loaded }.compactMap(\.fileID))
    }
}

/// The telemetry files' load, as the friction lane's first work. It loads once: when a retried
/// compute step runs the lane again, the files it loaded keep their reports.
public final class TelemetryLoad: @unchecked Sendable {
    // Safe: `loadedReports` and `loadSeconds` are written and read under `lock` only.
    private let lock = NSLock()
    private var loadedReports: [IngestRun.FileReport]?
    private var loadSeconds = 0.0
    private let files: [String]
    private let ingest: IngestRun
    private let stop: StopFlag
    private let logger: Logger

    public init(files: [String], ingest: IngestRun, stop: StopFlag, logger: Logger) {
        self.files = files
        self.ingest = ingest
        self.stop = stop
        self.logger = logger
    }

    /// Loads the files unless a previous call did.
    public func load() throws {
        guard !files.isEmpty, lock.withLock({ loadedReports == nil }) else { return }
        let started = Date()
        logger.info("ingesting telemetry beside the metrics", metadata: ["run.files": "\(files.count)"])
        let reports = try ingest.run(files: files, stop: stop, progress: IngestProgress(), logger: logger)
        lock.withLock {
            loadedReports = reports
            loadSeconds = Date().timeIntervalSince(started)
        }
    }

    /// One report per file once loaded; none before.
    public var reports: [IngestRun.FileReport] { lock.withLock { loadedReports ?? [] } }

    /// How long the load took.
    public var seconds: Double { lock.withLock { loadSeconds } }
}
