import Foundation
import FunnelSQL
public import FunnelCore
public import Logging
public import PostgresClient

/// One compute as every command runs it (`funnel compute`, `funnel demo`, `funnel run`): the
/// metrics (`ComputeEngine`), then the onboarding friction of what new data touched: all of it
/// on a full run; otherwise the sessions from the earliest new telemetry day or dirty cohort day
/// (a day earlier, for time zones) on, or only the impact when new files hold no telemetry
/// (their steps and opens change outcomes). With nothing new for compute, friction still reads
/// the loaded files it never read (a run stopped between the two), and rebuilds the outcomes
/// counted under another time zone or day rule; otherwise nothing runs.
///
/// Given settings for a second connection, an incremental job without a date range runs the two
/// side by side: friction reads only raw rows and writes only its own tables, and which files it
/// has read is its own ledger (`friction_files`), so it needs nothing from the metrics. On two
/// cores the job then takes about as long as the metrics alone. The second connection can first
/// do work the metrics need nothing from (`beforeFriction`: `funnel run` loads the telemetry
/// files there, which only friction reads), so that work too runs beside the metrics.
///
/// The configuration reaches both by one route: the job writes `ComputeSettings` (holding the
/// compute lock) in a transaction of its own before either starts, and each records what it
/// computed under in its own transaction (`computed_under`), so a lane that fails does not claim
/// the new configuration and redoes its work under it next time.
public struct ComputeJob: Sendable {
    public let configuration: FunnelConfiguration
    /// The file the configuration came from (nil: the built-in defaults), for the record.
    public let source: String?
    public let logger: Logger

    public init(configuration: FunnelConfiguration, source: String? = nil, logger: Logger = Logger(label: "funnel.compute")) {
        self.configuration = configuration
        self.source = source
        self.logger = logger
    }

    /// What one job did.
    public struct Result: Sendable {
        public let compute: ComputeSummary
        /// Nil when no telemetry needed a new look.
        public let friction: FrictionSummary?
    }

    /// Runs the job; nil when another compute holds the lock and `options.waitForLock` is false.
    /// - Parameters:
    ///   - alongside: the database for a second connection, on which friction runs while the
    ///     metrics run on `connection` (an incremental job without --from/--to only; otherwise,
    ///     and without it, friction runs after the metrics on `connection`).
    ///   - beforeFriction: work that must be done before friction starts and that the metrics do
    ///     not read: run on the second connection's thread before friction, beside the metrics;
    ///     without the second connection, before the metrics. Its error fails the job, after the
    ///     metrics have committed.
    public func run(_ connection: PostgresConnection, options: ComputeOptions,
                    alongside: ConnectionSettings? = nil,
                    beforeFriction: (@Sendable () throws -> Void)? = nil) throws -> Result? {
        guard let alongside, !options.full, options.from == nil, options.to == nil else {
            try beforeFriction?()
            return try runInTurn(connection, options: options)
        }
        // The job's lock before friction starts, so a busy job does nothing (session advisory
        // locks stack: the engine takes it once more and gives that back).
        if options.waitForLock {
            try connection.advisoryLock(ComputeEngine.lockKey)
        } else if try !connection.tryAdvisoryLock(ComputeEngine.lockKey) {
            return nil
        }
        defer { if connection.isHealthy { _ = try? connection.advisoryUnlock(ComputeEngine.lockKey) } }
        // Committed before friction connects, so it reads them too.
        try ComputeSettings(configuration: configuration, source: source).write(connection)
        let friction = FrictionAlongside(settings: alongside, first: beforeFriction, logger: logger)
        let compute: ComputeSummary?
        var metricsOptions = options
        metricsOptions.findsFrictionScope = false
        metricsOptions.settingsWritten = true
        do {
            compute = try ComputeEngine(configuration: configuration, source: source, logger: logger)
                .run(connection, options: metricsOptions)
        } catch {
            _ = try? friction.wait()
            throw error
        }
        let frictionSummary = try friction.wait()
        guard let compute else { return nil }
        return Result(compute: compute, friction: frictionSummary)
    }

    /// The metrics, then friction, on one connection.
    private func runInTurn(_ connection: PostgresConnection, options: ComputeOptions) throws -> Result? {
        guard let compute = try ComputeEngine(configuration: configuration, source: source, logger: logger)
            .run(connection, options: options)
        else { return nil }
        var friction: FrictionSummary?
        if let frictionScope = try compute.frictionScope ?? Self.unreadFrictionScope(connection) {
            friction = try connection.withAdvisoryLock(AdvisoryLockKey("funnel.friction")) {
                try FrictionComputation().run(on: connection, scope: frictionScope, logger: logger)
            }
        }
        return Result(compute: compute, friction: friction)
    }

    /// Where friction must look when compute had nothing new: the sessions touched by files
    /// that friction never read (it was stopped in between, or runs beside the metrics); only the
    /// impact when the outcomes were counted under another time zone or day rule than the
    /// configuration in force (the run rebuilds them); nil when neither.
    static func unreadFrictionScope(_ connection: PostgresConnection) throws -> FrictionScope? {
        let row = try connection.query(SQLCatalog.text("friction/unread_files.sql"))[0]
        guard try row.decode(Bool.self, at: 0) else {
            return try row.decode(Bool.self, at: 1) ? .impactOnly : nil
        }
        return .newFiles
    }
}

/// Friction on its own thread and connection, for a job that runs it beside the metrics: it takes
/// the files no friction run has read (`unread_files.sql`), as a run catching up does. `first`
/// runs on the thread before friction connects; when it fails, friction does not run.
private final class FrictionAlongside: @unchecked Sendable {
    // Safe: `outcome` is written once by the thread before `done` is signalled, and read only
    // after `wait()` has seen the signal.
    private var outcome: Result<FrictionSummary?, any Error> = .success(nil)
    private let done = DispatchSemaphore(value: 0)

    init(settings: ConnectionSettings, first: (@Sendable () throws -> Void)?, logger: Logger) {
        let thread = Thread { [self] in
            outcome = Result {
                try first?()
                let connection = try settings.connect(logger: logger)
                guard let scope = try ComputeJob.unreadFrictionScope(connection) else { return nil }
                return try connection.withAdvisoryLock(AdvisoryLockKey("funnel.friction")) {
                    try FrictionComputation().run(on: connection, scope: scope, logger: logger)
                }
            }
            done.signal()
        }
        thread.name = "funnel.friction"
        thread.start()
    }

    /// Waits for the thread; its summary (nil when no file was unread), or its error.
    func wait() throws -> FrictionSummary? {
        done.wait()
        return try outcome.get()
    }
}
