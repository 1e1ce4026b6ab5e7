import Foundation

/// A vendor whose exports `funnel ingest` reads as the vendor ships them (`--source NAME`, a
/// `[[ingest.files]]` rule's `source`, or told by the file's header; docs/imports.md). Each
/// vendor record is translated into one line of funnel's own NDJSON carrying its `kind`, on the
/// vendor file's own line, so the reader, validator and loader of funnel's contract load it
/// unchanged: each event once, rejects with the vendor file's line, the ingest ledger, reruns.
public enum VendorSource: String, Sendable, CaseIterable {
    /// AppsFlyer raw-data reports (installs, in-app events, uninstalls, reinstalls, retargeting,
    /// organic or not), CSV as exported.
    case appsflyer
    /// Adjust CSV exports and raw-data callbacks (a column per placeholder, `{adid}` or `adid`).
    case adjust
    /// The Segment spec's calls as NDJSON (track, identify, alias, screen, page, group).
    case segment
    /// RudderStack's events, which follow the Segment spec.
    case rudderstack
    /// PostHog's events export as NDJSON.
    case posthog
    /// Amplitude's Export API: a zip of gzipped hourly NDJSON files, or one such file.
    case amplitude
    /// Firebase's (Google Analytics for Firebase) BigQuery export rows as NDJSON.
    case firebase

    /// The name the summary and docs use.
    public var displayName: String {
        switch self {
        case .appsflyer: "AppsFlyer raw data"
        case .adjust: "Adjust raw data"
        case .segment: "Segment calls"
        case .rudderstack: "RudderStack events (the Segment spec)"
        case .posthog: "PostHog events"
        case .amplitude: "Amplitude export"
        case .firebase: "Firebase BigQuery export rows"
        }
    }

    /// The vendor's own name.
    public var vendorName: String {
        switch self {
        case .appsflyer: "AppsFlyer"
        case .adjust: "Adjust"
        case .segment: "Segment"
        case .rudderstack: "RudderStack"
        case .posthog: "PostHog"
        case .amplitude: "Amplitude"
        case .firebase: "Firebase"
        }
    }

    /// Whether the vendor's export is NDJSON (else CSV).
    public var isNDJSONExport: Bool {
        switch self {
        case .appsflyer, .adjust: false
        case .segment, .rudderstack, .posthog, .amplitude, .firebase: true
        }
    }

    /// The names `--source` accepts, for messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Whether the vendor writes times without a zone (AppsFlyer: in the app's report time
    /// zone), so the zone the import reads them in is said in the summary.
    var writesZonelessTimes: Bool {
        switch self {
        case .appsflyer, .posthog, .amplitude: true
        case .adjust, .segment, .rudderstack, .firebase: false
        }
    }

    /// The zone of zone-less times when neither `--assume-tz` nor the configuration names one:
    /// the vendor's own default (AppsFlyer's report time zone is UTC unless the team set one).
    var defaultTimeZone: String? {
        switch self {
        case .appsflyer, .posthog, .amplitude: "UTC"
        case .adjust, .segment, .rudderstack, .firebase: nil
        }
    }

    /// Why ``defaultTimeZone`` is the vendor's zone, for the summary.
    var defaultZoneReason: String {
        switch self {
        case .posthog: "PostHog stores times in UTC"
        case .amplitude: "Amplitude's export writes UTC"
        default: "\(vendorName)'s default report time zone"
        }
    }

    /// The vendor whose export a CSV header is, where the header tells it unambiguously: the
    /// columns only that vendor writes.
    static func detect(csvColumns columns: [String]) -> VendorSource? {
        let names = Set(columns.map { $0.trimmingCharacters(in: [" ", "\t"]) })
        if names.contains("AppsFlyer ID"), names.contains("Event Time"), names.contains("Event Name") { return .appsflyer }
        let placeholders = Set(names.map { $0.hasPrefix("{") && $0.hasSuffix("}") && $0.count >= 2 ? String($0.dropFirst().dropLast()) : $0 })
        if placeholders.contains("adid"), placeholders.contains("activity_kind"), placeholders.contains("created_at") { return .adjust }
        return nil
    }

    func makeTranslator(revenueMinorUnits: Bool = false, appID: String? = nil) -> any VendorTranslator {
        switch self {
        case .appsflyer: AppsFlyerTranslator()
        case .adjust: AdjustTranslator()
        case .segment, .rudderstack: SegmentTranslator()
        case .posthog: PostHogTranslator(minorUnits: revenueMinorUnits)
        case .amplitude: AmplitudeTranslator(appID: appID.map { Array($0.utf8) })
        case .firebase: FirebaseTranslator()
        }
    }
}

/// What became of one vendor record.
enum VendorRowOutcome {
    /// Translated: one NDJSON object was appended.
    case row
    /// The vendor marks the row (test, fraud-rejected, blocked): counted under this label and
    /// named in the summary, not loaded.
    case marked(String)
    /// The record cannot be translated: rejected with this reason and the vendor file's line.
    case rejected(String)
}

/// A header the translator cannot read: it lacks a column the vendor always writes.
struct VendorHeaderProblem: Error {
    let reason: String
}

/// The fields of one split CSV record, by column.
struct VendorRow {
    let store: UnsafeBufferPointer<UInt8>
    let starts: [Int32]
    let counts: [Int32]

    /// The field of `column`, empty when the column is absent (-1) or the record is short.
    @inline(__always)
    func field(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        guard column >= 0, column < starts.count else { return UnsafeBufferPointer(start: nil, count: 0) }
        let start = Int(starts[column])
        return UnsafeBufferPointer(rebasing: store[start..<start + Int(counts[column])])
    }

    /// The field of `column` with spaces and tabs around it trimmed.
    @inline(__always)
    func trimmed(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        let bytes = field(column)
        var lo = 0
        var hi = bytes.count
        while lo < hi && (bytes[lo] == 0x20 || bytes[lo] == 0x09) { lo += 1 }
        while hi > lo && (bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lo..<hi])
    }
}

/// Turns one vendor's records into funnel NDJSON lines.
protocol VendorTranslator {
    /// Whether the vendor's export is NDJSON (one record per line, no header) rather than CSV.
    var isNDJSON: Bool { get }
    /// Appends one NDJSON object for an NDJSON vendor's record, or says why not.
    mutating func translate(json line: UnsafeBufferPointer<UInt8>, into writer: inout NDJSONWriter) -> VendorRowOutcome
    /// Reads the header's column names; throws when a column the vendor always writes is missing.
    /// Returns the columns no funnel field takes (kept as event properties, or not stored).
    mutating func prepare(columns: [String]) throws(VendorHeaderProblem) -> [String]
    /// Appends one NDJSON object (no line break) for `row` to `writer`, or says why not (and
    /// appends nothing).
    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome
}

extension VendorTranslator {
    var isNDJSON: Bool { false }

    mutating func translate(json line: UnsafeBufferPointer<UInt8>, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        .rejected("this vendor's export is CSV")
    }
}

/// The first column of `columns` named one of `names` (exact, spaces around ignored), or -1.
func vendorColumn(_ columns: [String], _ names: String...) -> Int {
    for name in names {
        if let index = columns.firstIndex(where: { $0.trimmingCharacters(in: [" ", "\t"]) == name }) { return index }
    }
    return -1
}
