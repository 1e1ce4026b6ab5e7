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
/// A job without a date range can run the two side by side (`claim`, then `runMetrics` and
/// `catchUpFriction` on two connections, then `release`; FunnelPipeline's `ComputeLanes` threads
/// them): friction reads only raw rows and writes only its own tables, and which files it has read
/// is its own ledger (`friction_files`), so it needs nothing from the metrics. A full job's
/// friction rebuilds everything, as the metrics do; an incremental job's reads what it never read.
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

        public init(compute: ComputeSummary, friction: FrictionSummary?) {
            self.compute = compute
            self.friction = friction
        }
    }

    /// Runs the job in turn on one connection: the metrics, then friction on what they found new
    /// (or what friction never read); nil when another compute holds the lock and
    /// `options.waitForLock` is false. FunnelPipeline's `ComputeLanes` runs the two side by side
    /// on two connections instead, from the parts below.
    public func run(_ connection: PostgresConnection, options: ComputeOptions) throws -> Result? {
        try runInTurn(connection, options: options)
    }

    /// Whether a job with `options` can run its lanes side by side: a job without a date range,
    /// full or incremental (a ranged one needs the metrics' look at what changed first).
    public static func runsLanesSideBySide(_ options: ComputeOptions) -> Bool {
        options.from == nil && options.to == nil
    }

    /// The first part of a job whose lanes run side by side: takes the compute lock on
    /// `connection` (held until `release`, so a busy job starts no lane) and writes the
    /// configuration in force, committed, so friction on its own connection reads it too. False
    /// when another compute holds the lock and `waitForLock` is false.
    public func claim(_ connection: PostgresConnection, waitForLock: Bool) throws -> Bool {
        if waitForLock {
            try connection.advisoryLock(ComputeEngine.lockKey)
        } else if try !connection.tryAdvisoryLock(ComputeEngine.lockKey) {
            return false
        }
        do {
            try ComputeSettings(configuration: configuration, source: source).write(connection)
        } catch {
            release(connection)
            throw error
        }
        return true
    }

    /// Gives back the lock `claim` took.
    public func release(_ connection: PostgresConnection) {
        if connection.isHealthy { _ = try? connection.advisoryUnlock(ComputeEngine.lockKey) }
    }

    /// The metrics lane, after `claim`: the engine with the settings already written, reading
    /// nothing of the telemetry (friction finds its own work). Session advisory locks stack: the
    /// engine takes the job's lock once more and gives that back.
    public func runMetrics(_ connection: PostgresConnection, options: ComputeOptions) throws -> ComputeSummary? {
        var metricsOptions = options
        metricsOptions.findsFrictionScope = false
        metricsOptions.settingsWritten = true
        return try ComputeEngine(configuration: configuration, source: source, logger: logger)
            .run(connection, options: metricsOptions)
    }

    /// The friction lane, after `claim`, on its own connection: with `full`, everything (as
    /// `--full` rebuilds the metrics); otherwise the files no friction run has read
    /// (`unread_files.sql`), or the impact when the outcomes were counted under another time zone
    /// or day rule; nil when neither.
    public func catchUpFriction(_ connection: PostgresConnection, full: Bool = false) throws -> FrictionSummary? {
        guard let scope = full ? FrictionScope.everything : try Self.unreadFrictionScope(connection) else { return nil }
        return try runFriction(connection, scope: scope)
    }

    /// Friction over `scope`, under friction's own lock.
    private func runFriction(_ connection: PostgresConnection, scope: FrictionScope) throws -> FrictionSummary {
        try connection.withAdvisoryLock(Self.frictionLockKey) {
            try FrictionComputation().run(on: connection, scope: scope, logger: logger)
        }
    }

    /// Held while friction computes; whatever rewrites friction's tables takes it too.
    public static let frictionLockKey = AdvisoryLockKey("funnel.friction")

    /// The metrics, then friction, on one connection.
    private func runInTurn(_ connection: PostgresConnection, options: ComputeOptions) throws -> Result? {
        guard let compute = try ComputeEngine(configuration: configuration, source: source, logger: logger)
            .run(connection, options: options)
        else { return nil }
        var friction: FrictionSummary?
        if let frictionScope = try compute.frictionScope ?? Self.unreadFrictionScope(connection) {
            friction = try runFriction(connection, scope: frictionScope)
        }
        return Result(compute: compute, friction: friction)
    }

    /// Where friction must look when compute had nothing new: the sessions touched by files
    /// that friction never read (it was stopped in between, or runs beside the metrics); only the
    /// impact when the outcomes were counted under another time zone or day rule than the
    /// configuration in force (the run rebuilds them); nil when neither.
    static func unreadFrictionScope(_ connection: PostgresConnection) throws -> FrictionScope? {
        let row = try connection.query(SQLCatalog.text("bookkeeping/friction/unread_files.sql"))[0]
        guard try row.decode(Bool.self, at: 0) else {
            return try row.decode(Bool.self, at: 1) ? .impactOnly : nil
        }
        return .newFiles
    }
}
