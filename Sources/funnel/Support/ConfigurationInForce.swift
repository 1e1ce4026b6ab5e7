import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

/// The configuration a compute runs under and the file it came from: found as
/// docs/configuration.md says (--config, $FUNNEL_CONFIG, ./funnel.toml, $FUNNEL_HOME/funnel.toml,
/// else the defaults), shown by `funnel compute` and in every report, and compared with the last
/// compute's so a changed setting never goes unnoticed.
struct ConfigurationInForce {
    let configuration: FunnelConfiguration
    /// The absolute path of the file read; nil for the built-in defaults.
    let source: String?

    /// How messages and reports name where the configuration came from.
    var sourceLabel: String { source ?? "built-in defaults (no funnel.toml found)" }

    /// Finds and reads the configuration; every problem in the file is reported at once, as a
    /// usage error.
    static func load(path: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConfigurationInForce {
        let directory = FileManager.default.currentDirectoryPath
        let chosen = path ?? FunnelConfiguration.defaultLocations(environment: environment, currentDirectory: directory)
            .first { FileManager.default.fileExists(atPath: $0) }
        guard let chosen else { return ConfigurationInForce(configuration: FunnelConfiguration(), source: nil) }
        let absolute = URL(fileURLWithPath: chosen, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
            .standardizedFileURL.path
        do {
            return ConfigurationInForce(configuration: try FunnelConfiguration.loadReportingAll(path: absolute), source: absolute)
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }

    /// How this configuration differs from the one the database was last computed with, and
    /// what the rebuild it forces costs; nil when nothing was computed yet or nothing changed.
    func change(on connection: PostgresConnection) throws -> ConfigurationChange? {
        let row = try connection.query(SQLCatalog.text("compute/configuration_change.sql"), [configuration.fingerprint]).rows.first
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
        let cost = try connection.query(SQLCatalog.text("compute/rebuild_cost.sql")).rows.first
        return ConfigurationChange(
            previousSource: try row.decode(String?.self, column: "previous_source"),
            previousKnown: previousSettings != nil, source: source, differences: differences,
            users: try cost?.decode(Int64.self, column: "users") ?? 0,
            cohortDays: try cost?.decode(Int64.self, column: "cohort_days") ?? 0,
            lastFullSeconds: try cost?.decode(Double?.self, column: "last_full_seconds"),
            lastSeconds: try cost?.decode(Double?.self, column: "last_seconds"))
    }

    /// Records this configuration as the one the last compute ran under.
    func record(on connection: PostgresConnection) throws {
        let settings = String(decoding: try JSONEncoder().encode(configuration.settings), as: UTF8.self)
        try connection.query(SQLCatalog.text("compute/record_configuration.sql"), [source, settings, configuration.fingerprint])
    }

    /// The `configuration` object of `funnel compute --json`.
    func output(change: ConfigurationChange?) -> Output {
        Output(source: source, settings: Dictionary(configuration.settings.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }),
               changedSinceLastCompute: change != nil, changes: change?.differences ?? [],
               previousSource: change?.previousSource)
    }

    struct Output: Encodable {
        let source: String?
        let settings: [String: String]
        let changedSinceLastCompute: Bool
        let changes: [ConfigurationChange.Difference]
        let previousSource: String?
    }
}

/// A configuration that differs from the last compute's: which settings changed, and what the
/// full rebuild it forces will redo.
struct ConfigurationChange {
    struct Difference: Codable, Equatable, Sendable {
        let key: String
        let before: String?
        let after: String?
    }

    let previousSource: String?
    /// False when the last compute left no record of its settings (before migration 0080).
    let previousKnown: Bool
    let source: String?
    let differences: [Difference]
    let users: Int64
    let cohortDays: Int64
    let lastFullSeconds: Double?
    /// The last compute's time, full or not (a database computed only incrementally so far).
    let lastSeconds: Double?

    /// The warning printed before the rebuild starts.
    var warning: String {
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

    static func grouped(_ value: Int64) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }
}
