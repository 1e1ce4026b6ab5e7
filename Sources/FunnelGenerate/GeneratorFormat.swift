/// The file formats `funnel generate` writes: CSV with a header row, or NDJSON.
public enum GeneratorFormat: String, CaseIterable, Sendable, Codable {
    case csv
    case ndjson
}
