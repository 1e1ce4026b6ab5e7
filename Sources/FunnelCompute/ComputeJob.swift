import FunnelSQL
public import FunnelCore
public import Logging
public import PostgresClient

/// One compute as every command runs it (`funnel compute`, `funnel demo`, `funnel run`): the
/// metrics (`ComputeEngine`), then the onboarding friction of what new data touched: all of it
/// on a full run; otherwise the sessions from the earliest new telemetry day or dirty cohort day
/// (a day earlier, for time zones) on, or only the impact when new files hold no telemetry
/// (their steps and opens change outcomes). With nothing new for compute, friction still reads
/// the loaded files it never read (a run stopped between the two); otherwise nothing runs.
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
        guard let compute = try ComputeEngine(configuration: configuration, logger: logger).run(connection, options: options)
        else { return nil }
        var friction: FrictionSummary?
        if let frictionScope = try compute.frictionScope ?? Self.unreadFrictionScope(connection) {
            friction = try connection.withAdvisoryLock(AdvisoryLockKey("funnel.friction")) {
                try FrictionComputation().run(on: connection, scope: frictionScope, logger: logger)
            }
        }
        return Result(compute: compute, friction: friction)
    }

    /// Where friction must look when compute had nothing new: files compute folded in earlier
    /// that friction never read (it was stopped in between); nil when there are none.
    static func unreadFrictionScope(_ connection: PostgresConnection) throws -> FrictionScope? {
        let row = try connection.query(SQLCatalog.text("friction/unread_files.sql"))[0]
        guard try row.decode(Bool.self, at: 0) else { return nil }
        return try row.decode(PostgresDate?.self, at: 1).map { FrictionScope(from: $0) } ?? .impactOnly
    }
}
