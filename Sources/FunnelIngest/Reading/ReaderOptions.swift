import FunnelCalendar
public import FunnelCore
public import Foundation

/// How ``InputFileReader`` reads a file: the kind when the user forces one, the zone assumed
/// for zone-less timestamps, the clock used for the "not in the future" check, and the limits
/// that keep memory bounded on hostile input.
public struct ReaderOptions: Sendable {
    /// The kind of every row (`--kind`); nil means from the file name, else from each NDJSON
    /// line's `kind` field.
    public var kind: EventKind?
    /// The zone for timestamps without one (`--assume-tz`): an IANA name or a fixed offset.
    /// Nil rejects such timestamps.
    public var assumeTimeZone: String?
    /// Per app id: the zone of its rows' timestamps without one, where `assumeTimeZone` is nil
    /// (`[[ingest.apps]]`); rows of other apps take `fallbackTimeZone`.
    public var appTimeZones: [String: String] = [:]
    /// The zone of zone-less timestamps of rows whose app has none of its own (`[ingest]`
    /// `assume_tz`); nil rejects them.
    public var fallbackTimeZone: String?
    /// "Now" for the sanity check that timestamps are at most 2 days in the future.
    public var now: Date
    /// The format, when the caller knows better than the file name and the first byte.
    public var format: InputFormat?
    /// The vendor whose export the file is (`--source`): its records are translated into
    /// funnel's kinds (docs/imports.md). Nil: funnel's own contract, or a vendor told by a CSV
    /// header, when no kind is given.
    public var source: VendorSource?
    /// A vendor export's revenue is in minor units (`--revenue-minor-units`).
    public var revenueMinorUnits = false
    /// The app id of an Amplitude export's rows (`--app-id`); nil: `amplitude-<project>`.
    public var appID: String?
    /// A record longer than this is rejected ("record longer than 1 MiB") and skipped.
    public var maxRecordBytes: Int
    /// A CSV header with more columns (or a JSON object with more fields) is refused.
    public var maxColumns: Int
    /// How much of a rejected record's text is kept for the rejects table.
    public var maxRawTextBytes: Int
    /// How many bytes are read from the file (or zlib) at a time.
    public var readChunkBytes: Int
    /// How far a gzip file may expand before it is refused as a likely decompression bomb.
    public var expansion = ExpansionLimit()
    /// A kind whose valid rows are written as binary COPY rows (a split load's, ``SplitLoad``)
    /// instead of COPY text.
    var binaryLayout: BinaryLayout?

    public init(
        kind: EventKind? = nil, assumeTimeZone: String? = nil, now: Date = Date(),
        format: InputFormat? = nil, maxRecordBytes: Int = 1 << 20, maxColumns: Int = 1000,
        maxRawTextBytes: Int = 4096, readChunkBytes: Int = 1 << 20
    ) {
        self.kind = kind
        self.assumeTimeZone = assumeTimeZone
        self.now = now
        self.format = format
        self.maxRecordBytes = maxRecordBytes
        self.maxColumns = maxColumns
        self.maxRawTextBytes = maxRawTextBytes
        self.readChunkBytes = readChunkBytes
    }
}

/// How far a gzip file may expand: past ``maxRatio`` times the compressed bytes read so far (once
/// it has given ``ratioFloorBytes``), or past ``maxBytes`` in all, it is refused. A 9.4 MB file of
/// one repeated row expanding to 2 GiB (228x) is stopped after 64 MiB; real exports compress 5 to
/// 20 times.
public struct ExpansionLimit: Sendable, Equatable {
    /// Decompressed bytes per compressed byte (`--max-expansion`).
    public var maxRatio: Double
    /// Decompressed bytes in all (`--max-decompressed`).
    public var maxBytes: Int64
    /// Output below which the ratio is not checked (a small file may compress very well).
    public var ratioFloorBytes: Int64

    public init(maxRatio: Double = 100, maxBytes: Int64 = 64 << 30, ratioFloorBytes: Int64 = 64 << 20) {
        self.maxRatio = maxRatio
        self.maxBytes = maxBytes
        self.ratioFloorBytes = ratioFloorBytes
    }

    /// Parses a size such as `500M`, `64G` or `1048576` (K, M, G, T are powers of 1024).
    public static func parseSize(_ text: String) -> Int64? {
        IngestSettings.parseSize(text)
    }
}

/// A row that failed validation: where it was, what it said, and why it was not loaded.
public struct RejectedRow: Sendable, Hashable {
    /// The physical line (1-based, the CSV header is line 1) where the record starts.
    public let line: Int64
    /// The row's kind, when known (a mixed-kind NDJSON row without a usable `kind` has none).
    public let kind: EventKind?
    /// The record's text as valid UTF-8 (invalid bytes and NULs replaced by U+FFFD), at most
    /// ``ReaderOptions/maxRawTextBytes`` bytes.
    public let raw: String
    /// Why it was rejected, e.g. `country: "XX" is not an ISO 3166-1 alpha-2 code`.
    public let reason: String

    public init(line: Int64, kind: EventKind?, raw: String, reason: String) {
        self.line = line
        self.kind = kind
        self.raw = raw
        self.reason = reason
    }
}

/// The earliest and latest time-field values among the rows of one kind, for creating the raw
/// table's monthly partitions before COPY.
public struct TimeBounds: Sendable, Hashable {
    /// Microseconds since 1970-01-01 UTC (a `date` counts as its midnight UTC).
    public var earliestMicros: Int64
    public var latestMicros: Int64

    public init(earliestMicros: Int64, latestMicros: Int64) {
        self.earliestMicros = earliestMicros
        self.latestMicros = latestMicros
    }

    /// The UTC date of ``earliestMicros`` as `YYYY-MM-DD`.
    public var earliestDate: String { Self.date(earliestMicros) }
    /// The UTC date of ``latestMicros`` as `YYYY-MM-DD`.
    public var latestDate: String { Self.date(latestMicros) }

    mutating func include(_ micros: Int64) {
        earliestMicros = min(earliestMicros, micros)
        latestMicros = max(latestMicros, micros)
    }

    private static func date(_ micros: Int64) -> String {
        var bytes: [UInt8] = []
        TimestampWriter.appendDate(days: CivilTime.floorDiv(micros, 86_400_000_000), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
