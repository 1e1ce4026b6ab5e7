import Foundation
import FunnelSQL
public import FunnelCore
public import PostgresClient

/// The compute bookkeeping that commands read and write around a compute (`sql/bookkeeping/metrics/`): what
/// waits to be computed, the last run, the configuration each lane computed under, and the
/// telemetry files a daily run's friction lane has taken in. The one place outside the engine
/// that runs compute's statements.
public struct ComputeLedger {
    public let connection: PostgresConnection

    public init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// True when loaded rows wait for a compute (in the cohort-date range, when one is given).
    public func hasPendingWork(from: PostgresDate? = nil, to: PostgresDate? = nil) throws -> Bool {
        try connection.query(SQLCatalog.text("bookkeeping/metrics/pending_work.sql"), [from, to]).rows.first?.decode(Bool.self, at: 0) ?? false
    }

    /// The last compute run's id (`compute_runs.run_id`); 0 before the first.
    public func lastRunID() throws -> Int64 {
        try connection.query("select coalesce(max(run_id), 0)::bigint from compute_runs").scalar(Int64.self)
    }

    /// Records loaded telemetry files as folded in for the metrics once friction has read them
    /// (`telemetry_folded.sql`): the metrics read nothing from them, and left unfolded they would
    /// make the next run with nothing new compute again.
    public func markTelemetryFolded(_ fileIDs: [Int64]) throws {
        guard !fileIDs.isEmpty else { return }
        try connection.query(SQLCatalog.text("bookkeeping/metrics/telemetry_folded.sql"), [fileIDs])
    }

    /// How `configuration` (read from `source`, nil for the built-in defaults) differs from the
    /// one the database was last computed with, and what the rebuild it forces costs; nil when
    /// nothing was computed yet or nothing changed.
    public func configurationChange(to configuration: FunnelConfiguration, source: String?) throws -> ConfigurationChange? {
        let row = try connection.query(SQLCatalog.text("bookkeeping/metrics/configuration_change.sql"), [configuration.fingerprint]).rows.first
        guard let row, try row.decode(Bool.self, column: "changed") else { return nil }
        let previousSettings = try row.decode(String?.self, column: "previous_settings")
            .flatMap { try? JSONDecoder().decode([ConfigurationSetting].self, from: Data($0.utf8)) }
        var differences: [ConfigurationChange.Difference] = []
        if let previousSettings {
            let before = Dictionary(previousSettings.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
            let after = Dictionary(configuration.settings.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
            let keys = (previousSettings.map(\.key) + configuration.settings.map(\.key))
                .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            for key in keys where before[key] != after[key] {
                differences.append(.init(key: key, before: before[key], after: after[key]))
            }
        }
        let cost = try connection.query(SQLCatalog.text("bookkeeping/metrics/rebuild_cost.sql")).rows.first
        return ConfigurationChange(
            previousSource: try row.decode(String?.self, column: "previous_source"),
            previousKnown: previousSettings != nil, source: source, differences: differences,
            users: try cost?.decode(Int64.self, column: "users") ?? 0,
            cohortDays: try cost?.decode(Int64.self, column: "cohort_days") ?? 0,
            lastFullSeconds: try cost?.decode(Double?.self, column: "last_full_seconds"),
            lastSeconds: try cost?.decode(Double?.self, column: "last_seconds"))
    }

    /// Records that `lane` has computed under the configuration in force (`ComputeSettings`):
    /// called by the lane inside its own transaction, so a lane that fails keeps its old record.
    func recordComputedUnder(lane: ComputeLane) throws {
        try connection.query(SQLCatalog.text("bookkeeping/metrics/computed_under.sql"), [lane.rawValue])
    }

    /// The fingerprint, time zone and day rule `lane` last computed under; nil before its first
    /// run (the fingerprint is nil for a record older than migration 0068).
    public func computedUnder(lane: ComputeLane) throws -> (fingerprint: String?, timeZone: String, dayRule: String)? {
        try connection.query("select fingerprint, time_zone, day_rule from computed_under where lane = $1", [lane.rawValue])
            .rows.first.map { (try $0.decode(String?.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2)) }
    }
}

/// The two computations that read the configuration, each recording what it computed under.
public enum ComputeLane: String, Sendable {
    /// The metrics (`ComputeEngine`).
    case metrics
    /// Onboarding friction (`FrictionComputation`).
    case friction
}

/// A configuration that differs from the last compute's: which settings changed, and what the
/// full rebuild it forces will redo.
public struct ConfigurationChange: Sendable {
    /// One setting whose value changed (nil: unset on that side).
    public struct Difference: Codable, Equatable, Sendable {
        public let key: String
        public let before: String?
        public let after: String?
    }

    public let previousSource: String?
    /// False when the last compute left no record of its settings (before migration 0080).
    public let previousKnown: Bool
    public let source: String?
    public let differences: [Difference]
    public let users: Int64
    public let cohortDays: Int64
    public let lastFullSeconds: Double?
    /// The last compute's time, full or not (a database computed only incrementally so far).
    public let lastSeconds: Double?

    /// The warning printed before the rebuild starts.
    public var warning: String {
        var text = "warning: the configuration differs from the one the data was last computed with"
        let now = source ?? "the built-in defaults"
        let before = previousSource ?? "the built-in defaults"
        text += previousKnown ? " (\(before), now \(now))" : " (now \(now))"
        if !differences.isEmpty {
            text += ": " + differences.map { "\($0.key) \($0.before ?? "unset") -> \($0.after ?? "unset")" }.joined(separator: ", ")
        }
        text += ".\nEverything is recomputed under the new settings: \(Self.grouped(users)) user(s) over \(Self.grouped(cohortDays)) cohort day(s)"
        if let lastFullSeconds {
            text += String(format: "; the last full compute took %.1f s", lastFullSeconds)
        } else if let lastSeconds {
            text += String(format: "; the last compute took %.1f s", lastSeconds)
        }
        text += ". If this is not the configuration you meant, pass --config FILE (or set FUNNEL_CONFIG) and compute again."
        return text
    }

    /// A count with thousands separators (1,234,567).
    public static func grouped(_ value: Int64) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }
}
