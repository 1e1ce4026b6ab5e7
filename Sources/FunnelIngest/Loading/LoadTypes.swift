public import FunnelCore

/// How one queued file is read and judged. Fixed when the file is enqueued and kept on its queue
/// row, so any worker on any machine reads it the way the command that enqueued it was told.
public struct FileReadOptions: Sendable, Equatable {
    /// The zone of every zone-less timestamp of the file (`--assume-tz`, or its
    /// `[[ingest.files]]` rule); nil: per app, else `fallbackTimeZone`.
    public var assumeTimeZone: String?
    /// Per app id, the zone of its zone-less timestamps (`[[ingest.apps]]`).
    public var appTimeZones: [String: String]
    /// The zone of zone-less timestamps of the other apps (`[ingest] assume_tz`).
    public var fallbackTimeZone: String?
    /// The file is refused when more than this share of its rows is rejected.
    public var maxRejectShare: Double
    /// The vendor whose export the file is (`--source`, a rule's `source`); nil: funnel's own
    /// contract, or a vendor told by the header.
    public var source: VendorSource?
    /// The vendor's revenue is in minor units (cents): divided by the currency's before loading.
    public var revenueMinorUnits = false
    /// The app id of the rows of a vendor export that names no app funnel can join (`--app-id`:
    /// Amplitude's rows name their project only).
    public var appID: String?

    public init(assumeTimeZone: String? = nil, appTimeZones: [String: String] = [:], fallbackTimeZone: String? = nil,
                maxRejectShare: Double = IngestSettings.defaultMaxRejectShare, source: VendorSource? = nil) {
        self.assumeTimeZone = assumeTimeZone
        self.appTimeZones = appTimeZones
        self.fallbackTimeZone = fallbackTimeZone
        self.maxRejectShare = maxRejectShare
        self.source = source
    }
}

/// A file a worker has claimed from the queue (`ingest_files` row in status `loading`).
public struct ClaimedFile: Sendable, Equatable {
    public let fileID: Int64
    public let path: String
    /// The kind given at enqueue time (`--kind` or the file name); nil: from each NDJSON line.
    public let kind: EventKind?
    /// How the file is read and when it is refused, as given at enqueue time.
    public let options: FileReadOptions
    /// How many times the file has been claimed, this claim included.
    public let attempts: Int
    /// For a retried content (`--retry`), the entry whose place in the order of files it keeps.
    public let ranksAs: Int64?

    /// The zone given for the whole file at enqueue time.
    public var assumeTimeZone: String? { options.assumeTimeZone }

    public init(fileID: Int64, path: String, kind: EventKind?, options: FileReadOptions, attempts: Int, ranksAs: Int64? = nil) {
        self.fileID = fileID
        self.path = path
        self.kind = kind
        self.options = options
        self.attempts = attempts
        self.ranksAs = ranksAs
    }
}

/// What loading one file stored, as recorded on its `ingest_files` row.
public struct FileLoadCounts: Sendable, Equatable {
    /// Records read: valid plus rejected.
    public var rowsRead: Int
    /// Rows inserted (for ad_spend: inserted or replacing an earlier file's row).
    public var rowsLoaded: Int
    /// Valid rows not stored: already present (same file or an earlier one) or, for ad_spend,
    /// superseded by a later row for the same key.
    public var duplicates: Int
    /// Rows that failed validation (kept in `ingest_rejects`).
    public var rejected: Int
    /// The file's physical lines: header, blank, and the lines of the records read. Every line
    /// is accounted for (`lines.recordLines == rowsRead`), or the file is refused.
    public var lines: LineCounts

    public init(rowsRead: Int = 0, rowsLoaded: Int = 0, duplicates: Int = 0, rejected: Int = 0,
                lines: LineCounts = LineCounts()) {
        self.rowsRead = rowsRead
        self.rowsLoaded = rowsLoaded
        self.duplicates = duplicates
        self.rejected = rejected
        self.lines = lines
    }
}

/// Why a load ended without storing anything and without a verdict on the file: it goes back to
/// the queue (stop requested) or already belongs to another worker (claim lost).
public enum LoadInterruption: Error, Sendable, Equatable, CustomStringConvertible {
    /// The worker was asked to stop (SIGTERM/SIGINT) before the merge began.
    case stopRequested
    /// The lease expired and another worker took the file over.
    case claimLost(fileID: Int64)

    public var description: String {
        switch self {
        case .stopRequested: "stopped before the file was merged; it goes back to the queue"
        case .claimLost(let fileID): "file \(fileID) was taken over by another worker after its lease expired"
        }
    }
}

extension ReaderOptions {
    /// Whether `text` is a zone `--assume-tz` accepts (an IANA name or a fixed offset).
    public static func isValidTimeZone(_ text: String) -> Bool {
        AssumedTimeZone(text) != nil
    }
}
