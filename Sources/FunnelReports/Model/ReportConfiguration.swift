public import FunnelCore

/// The configuration a report's data was computed under: the file (nil for the built-in
/// defaults) and every setting as `funnel.toml` spells it.
public struct ReportConfiguration: Sendable, Codable, Equatable {
    public var source: String?
    public var settings: [ConfigurationSetting]
    /// When the compute that used it finished (UTC, ISO 8601).
    public var recordedAt: String

    public init(source: String?, settings: [ConfigurationSetting], recordedAt: String) {
        self.source = source
        self.settings = settings
        self.recordedAt = recordedAt
    }

    /// How reports name the file: the path, or the defaults.
    public var sourceLabel: String { source ?? "built-in defaults (no funnel.toml)" }

    /// A setting's value by key.
    public func value(_ key: String) -> String? { settings.first { $0.key == key }?.value }

    private enum CodingKeys: String, CodingKey {
        case source, settings
        case recordedAt = "recorded_at"
    }
}
