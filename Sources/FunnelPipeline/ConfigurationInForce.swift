public import Foundation
public import FunnelCompute
public import FunnelCore
public import PostgresClient

/// The configuration a compute runs under and the file it came from: found as
/// docs/configuration.md says (--config, $FUNNEL_CONFIG, ./funnel.toml, $FUNNEL_HOME/funnel.toml,
/// else the defaults), shown by `funnel compute` and in every report, and compared with the last
/// compute's so a changed setting never goes unnoticed.
public struct ConfigurationInForce: Sendable {
    public let configuration: FunnelConfiguration
    /// The absolute path of the file read; nil for the built-in defaults.
    public let source: String?

    public init(configuration: FunnelConfiguration, source: String?) {
        self.configuration = configuration
        self.source = source
    }

    /// How messages and reports name where the configuration came from.
    public var sourceLabel: String { source ?? "built-in defaults (no funnel.toml found)" }

    /// Finds and reads the configuration; every problem in the file is reported at once, as a
    /// usage error.
    public static func load(path: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConfigurationInForce {
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
    public func change(on connection: PostgresConnection) throws -> ConfigurationChange? {
        try ComputeLedger(connection).configurationChange(to: configuration, source: source)
    }

    /// The `configuration` object of `funnel compute --json`.
    public func output(change: ConfigurationChange?) -> Output {
        Output(source: source, settings: Dictionary(configuration.settings.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }),
               changedSinceLastCompute: change != nil, changes: change?.differences ?? [],
               previousSource: change?.previousSource)
    }

    /// The configuration in force as `--json` documents show it.
    public struct Output: Encodable {
        public let source: String?
        public let settings: [String: String]
        public let changedSinceLastCompute: Bool
        public let changes: [ConfigurationChange.Difference]
        public let previousSource: String?
    }
}
