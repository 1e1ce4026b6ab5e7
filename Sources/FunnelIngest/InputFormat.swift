/// The input file formats `funnel ingest` reads (either may be gzip-compressed).
public enum InputFormat: String, CaseIterable, Sendable, Codable {
    case csv
    case ndjson
}
