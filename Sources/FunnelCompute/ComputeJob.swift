public import FunnelCore
import FunnelSQL
public import Logging
public import PostgresClient

/// One compute as every command runs it (`funnel compute`, `funnel demo`, `funnel run`): the
/// metrics (`ComputeEngine`), then the onboarding friction of what new data touched: all of it
/// on a full run; otherwise the sessions from the earliest new telemetry day or dirty cohort day
/// (a day earlier, for time zones) on, or only the impact when new files hold no telemetry
/// (their steps and opens change outcomes), and nothing when nothing waited.
public struct ComputeJob: Sendable {
    public let configuration: FunnelConfiguration
    public let logger: Logger

    public init(configuration: FunnelConfiguration, logger: Logger = Logger(label: "funnel.compute")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// What one job did.
    public struct Result: Sendable {
        public let compute: ComputeSummary
        /// Nil when no telemetry needed a new look.
        public let friction: FrictionSummary?
    }

    /// Runs the job; nil when another compute holds the lock and `options.waitForLock` is false.
    public func run(_ connection: PostgresConnection, options: ComputeOptions) throws -> Result? {
        // Read before the engine drains the dirty ledger and records the new files as folded in.
        let frictionScope = try Self.frictionScope(connection, options: options)
        guard let compute = try ComputeEngine(configuration: configuration, logger: logger).run(connection, options: options)
        else { return nil }
        var friction: FrictionSummary?
        if let frictionScope {
            friction = try connection.withAdvisoryLock(AdvisoryLockKey("funnel.friction")) {
                try FrictionComputation().run(on: connection, scope: frictionScope, logger: logger)
            }
        }
        return Result(compute: compute, friction: friction)
    }

    static func frictionScope(_ connection: PostgresConnection, options: ComputeOptions) throws -> FrictionScope? {
        if options.full { return FrictionScope(from: options.from, to: options.to) }
        let pending = try connection.query(SQLCatalog.text("compute/pending_work.sql"), [options.from, options.to])
        guard let row = pending.rows.first, try row.decode(Bool.self, at: 0) else { return nil }
        if let from = try row.decode(PostgresDate?.self, at: 1) {
            return FrictionScope(from: from, to: options.to)
        }
        return .impactOnly
    }
}
