public import FunnelCore
public import PostgresClient

/// What one `funnel compute` run should do.
public struct ComputeOptions: Sendable {
    /// Rebuild everything in range instead of only the dirty cohort days.
    public var full: Bool
    /// Limit to cohort dates (and spend dates) from this date on, inclusive.
    public var from: PostgresDate?
    /// Limit to cohort dates up to this date, inclusive.
    public var to: PostgresDate?
    /// Wait for a running compute to finish instead of returning `nil` at once.
    public var waitForLock: Bool
    /// Whether the run also finds where friction must look again (`ComputeSummary.frictionScope`),
    /// which reads the new telemetry. False when friction runs beside the metrics on its own ledger
    /// (`ComputeJob` with a second connection): the metrics then read nothing of `raw_ux`, so the
    /// telemetry loading beside them never waits for their transaction to end (the load of a new
    /// month creates its partition, which needs the table to itself).
    public var findsFrictionScope: Bool
    /// Whether `ComputeSettings` were already written for this run (by `ComputeJob`, before the
    /// lanes start); otherwise the engine writes them before its transaction.
    var settingsWritten = false

    public init(full: Bool = false, from: PostgresDate? = nil, to: PostgresDate? = nil, waitForLock: Bool = false,
                findsFrictionScope: Bool = true) {
        self.full = full
        self.from = from
        self.to = to
        self.waitForLock = waitForLock
        self.findsFrictionScope = findsFrictionScope
    }
}

/// What a compute run did, for the human summary and `--json`.
public struct ComputeSummary: Sendable, Codable, Equatable {
    /// `full` or `incremental`.
    public var mode: String
    /// Whether a changed configuration turned an incremental run into a full one.
    public var configurationChanged: Bool
    /// (app, cohort date) pairs rebuilt.
    public var cohortDaysRebuilt: Int
    /// Users whose facts were rebuilt.
    public var usersRebuilt: Int
    /// Wall-clock seconds the run took.
    public var seconds: Double
    /// The day rule in force, as reports name it.
    public var dayRule: String
    /// The reporting time zone.
    public var timeZone: String
    /// Invariant checks that returned offending rows (empty when all pass).
    public var failedChecks: [String]
    /// Where the friction step must look again, read in the run's own snapshot (so a file loaded
    /// while the run starts is either in both or in neither): nil when the run found nothing
    /// waiting; `newFiles` for an unbounded run; with a range or a marked cohort day, by dates, or
    /// `impactOnly` when the new files hold no telemetry. Not part of the JSON summary.
    public var frictionScope: FrictionScope?
    /// Money in a currency without a rate on its date, left out of the metrics (empty when none).
    public var unconverted: [UnconvertedMoney] = []

    private enum CodingKeys: String, CodingKey {
        case mode, configurationChanged, cohortDaysRebuilt, usersRebuilt, seconds, dayRule, timeZone, failedChecks, unconverted
    }
}

/// Why compute failed in a way the user can act on.
public struct ComputeError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
