import Foundation
public import FunnelCore

/// Why a whole file is refused: it is not the format it claims to be, or it cannot be read.
/// No row of a refused file is loaded. `description` names the file and says what to do.
public enum FileRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// Gzip magic bytes but the stream does not inflate (corrupt or truncated).
    case badGzip(path: String, reason: String)
    /// A zip archive read for a vendor that ships zips whose directory or members cannot be read.
    case badZip(path: String, reason: String)
    /// NUL bytes or invalid UTF-8 at the start: not a text file.
    case binary(path: String)
    case missingColumns(path: String, kind: EventKind, columns: [String])
    case tooManyColumns(path: String, count: Int, max: Int)
    case headerTooLong(path: String, maxBytes: Int)
    /// An NDJSON file whose first non-empty line is not a JSON object.
    case notNDJSON(path: String)
    /// A CSV file whose kind is not given by `--kind` nor by its name.
    case unknownKind(path: String)
    /// A CSV header that is not valid CSV (a quoting problem in a column name).
    case badHeader(path: String, reason: String)
    /// A compressed file that expands past the limit: a likely decompression bomb.
    case expandsTooFar(path: String, reason: String)
    /// A vendor export (``VendorSource``) whose header lacks what that vendor always writes.
    case vendorHeader(path: String, source: String, reason: String)
    /// The reader could not account for every physical line (a defect of funnel's, never of
    /// the file): refused rather than risk losing rows.
    case unaccountedLines(path: String, lines: Int64, accounted: Int64)
    /// More of the file's rows would be rejected than the reject share allows: a file whose
    /// rows mostly fail is refused whole rather than loaded with most of a day missing.
    case mostRowsRejected(path: String, rejected: Int, rows: Int, maxShare: Double, cause: String, causeRows: Int,
                          example: String, fix: String?)

    /// The file this refusal is about.
    public var path: String {
        switch self {
        case .unreadable(let path, _), .badGzip(let path, _), .badZip(let path, _), .binary(let path),
             .missingColumns(let path, _, _), .tooManyColumns(let path, _, _),
             .headerTooLong(let path, _), .notNDJSON(let path), .unknownKind(let path),
             .badHeader(let path, _), .expandsTooFar(let path, _), .unaccountedLines(let path, _, _),
             .vendorHeader(let path, _, _),
             .mostRowsRejected(let path, _, _, _, _, _, _, _):
            path
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "\(path): cannot read the file: \(reason)"
        case .badGzip(let path, let reason):
            "\(path): refused: not a valid gzip stream (\(reason)); re-export or re-compress the file"
        case .badZip(let path, let reason):
            "\(path): refused: not a readable zip archive (\(reason)); re-export it, or unzip it and import its files"
        case .binary(let path):
            "\(path): refused: binary content (NUL bytes or invalid UTF-8), not a CSV or NDJSON text file"
        case .missingColumns(let path, let kind, let columns):
            "\(path): refused: the CSV header lacks the required \(kind.name) column\(columns.count == 1 ? "" : "s") "
                + "\(columns.joined(separator: ", ")) (columns are matched by name, case-sensitive)"
        case .tooManyColumns(let path, let count, let max):
            "\(path): refused: header has \(count) columns, at most \(max)"
        case .headerTooLong(let path, let maxBytes):
            "\(path): refused: the header row is longer than \(maxBytes) bytes"
        case .notNDJSON(let path):
            "\(path): refused: the first line is not a JSON object, so this is not NDJSON"
        case .unknownKind(let path):
            "\(path): refused: cannot tell which kind of rows it holds; pass --kind "
                + "(\(EventKind.allCases.map(\.name).joined(separator: ", "))) or name the file after "
                + "its kind, like installs-2024-05-01.csv"
        case .badHeader(let path, let reason):
            "\(path): refused: the CSV header is not valid CSV: \(reason); fix the header line"
        case .expandsTooFar(let path, let reason):
            "\(path): refused: \(reason)"
        case .vendorHeader(let path, let source, let reason):
            "\(path): refused: not readable as \(source): \(reason)"
        case .unaccountedLines(let path, let lines, let accounted):
            "\(path): refused: read \(lines) lines but accounted for \(accounted); nothing was loaded. "
                + "This is a defect in funnel: please report it with the file"
        case .mostRowsRejected(let path, let rejected, let rows, let maxShare, let cause, let causeRows, let example, let fix):
            "\(path): refused: \(rejected) of \(rows) rows would be rejected (\(Self.percent(rejected, rows))), more than "
                + "the \(Self.percent(maxShare)) the reject share allows (--max-reject-share, max_reject_share in [ingest]); "
                + "nothing was loaded. \(causeRows == rejected ? "All" : "\(causeRows)") for one reason: \(cause), e.g. \(example)"
                + (fix.map { ". Fix: \($0)" } ?? ". Fix the rows or the options and load the file again")
        }
    }
}

extension FileRefusal {
    static func percent(_ part: Int, _ whole: Int) -> String {
        percent(whole == 0 ? 0 : Double(part) / Double(whole))
    }

    static func percent(_ share: Double) -> String {
        let value = share * 100
        return value == value.rounded() ? "\(Int(value))%" : String(format: "%.1f%%", value)
    }
}

/// A reader option that cannot be used, e.g. an unknown `--assume-tz` zone (a usage error).
public enum ReaderOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownTimeZone(String)

    public var description: String {
        switch self {
        case .unknownTimeZone(let text):
            "--assume-tz \(text): not a time zone; use an IANA name like Europe/Berlin or an offset like +02:00"
        }
    }
}
