/// The input file formats `funnel ingest` reads (either may be gzip-compressed).
public enum InputFormat: String, CaseIterable, Sendable, Codable {
    case csv
    case ndjson

    /// The format a file name announces by its extension (`.csv`, `.ndjson`, `.jsonl`, `.json`,
    /// each optionally followed by `.gz`), if any.
    public init?(fileName: String) {
        var name = Substring(fileName.lowercased())
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        if name.hasSuffix(".csv") {
            self = .csv
        } else if name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") || name.hasSuffix(".json") {
            self = .ndjson
        } else {
            return nil
        }
    }
}
