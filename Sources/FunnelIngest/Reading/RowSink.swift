import FunnelCalendar
public import FunnelCore

/// What one ``InputFileReader/readBatch(maxRows:into:)`` call produced: each kind's COPY text
/// lines, the rejected rows, and counts. Reuse one sink and call ``reset()`` between batches:
/// the buffers keep their capacity.
public struct RowSink: Sendable {
    /// Per kind, indexed by kind ordinal: COPY text lines for `COPY stage_<kind> FROM STDIN`.
    var buffers: [[UInt8]]
    var counts: [Int]
    /// Per kind: valid rows that carry a device id (the file then goes through the identity
    /// step of its merge, ``IdentityLinks``).
    var deviceRows: [Int]
    var bounds: [TimeBounds?]
    /// Per kind: the months (`year * 12 + month - 1`, UTC) its rows fall in, and the last row's
    /// day, so a run of rows on one day costs one comparison each.
    var months: [Set<Int32>]
    private var lastDay: [Int64]

    /// Rows rejected in this batch, in file order.
    public var rejects: [RejectedRow] = []
    /// Records read in this batch: loaded plus rejected (empty lines are not counted).
    public var rowsRead: Int = 0
    /// The physical lines this batch passed, by what became of them (the first batch has the
    /// header's).
    public var lineCounts = LineCounts()
    /// How far into the file as stored the reader had come at the end of this batch (compressed
    /// bytes for a .gz file), for progress against the file's size.
    public var storedBytesConsumed: Int64 = 0
    /// For a vendor export (``VendorSource``): what the ingest summary says about it so far
    /// (``VendorSummary/note``); the last batch's is the whole file's.
    public var importNote: String?

    public init() {
        buffers = Array(repeating: [], count: EventKind.allCases.count)
        counts = Array(repeating: 0, count: EventKind.allCases.count)
        deviceRows = Array(repeating: 0, count: EventKind.allCases.count)
        bounds = Array(repeating: nil, count: EventKind.allCases.count)
        months = Array(repeating: [], count: EventKind.allCases.count)
        lastDay = Array(repeating: Int64.min, count: EventKind.allCases.count)
    }

    /// Notes a valid row's time field (microseconds since 1970, UTC) for the kind's bounds and
    /// months.
    mutating func include(_ micros: Int64, kind ordinal: Int) {
        if bounds[ordinal] == nil {
            bounds[ordinal] = TimeBounds(earliestMicros: micros, latestMicros: micros)
        } else {
            bounds[ordinal]!.include(micros)
        }
        let day = CivilTime.floorDiv(micros, 86_400_000_000)
        guard day != lastDay[ordinal] else { return }
        lastDay[ordinal] = day
        let civil = CivilTime.civil(fromDays: Int(day))
        months[ordinal].insert(Int32(civil.year * 12 + civil.month - 1))
    }

    /// Each kind's COPY text (one line per valid row, in `kind.fields` column order), for the
    /// kinds that have rows in this batch.
    public var copyData: [EventKind: [UInt8]] {
        var result: [EventKind: [UInt8]] = [:]
        for kind in EventKind.allCases where !buffers[kind.ordinal].isEmpty {
            result[kind] = buffers[kind.ordinal]
        }
        return result
    }

    /// The kinds with valid rows in this batch.
    public var kinds: [EventKind] { EventKind.allCases.filter { counts[$0.ordinal] > 0 } }

    /// The COPY text of one kind's valid rows (empty if none), without copying it.
    public func withCopyData<R>(for kind: EventKind, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffers[kind.ordinal].withUnsafeBufferPointer(body)
    }

    /// Valid rows of `kind` in this batch.
    public func rowCount(for kind: EventKind) -> Int { counts[kind.ordinal] }

    /// Valid rows of `kind` in this batch that carry a device id.
    public func deviceRowCount(for kind: EventKind) -> Int { deviceRows[kind.ordinal] }

    /// Valid rows of every kind in this batch.
    public var rowsLoaded: Int { counts.reduce(0, +) }

    /// The range of the time field among this batch's valid rows of `kind`.
    public func timeBounds(for kind: EventKind) -> TimeBounds? { bounds[kind.ordinal] }

    /// The months (UTC) this batch's valid rows of `kind` fall in, as `year * 12 + month - 1`.
    public func months(for kind: EventKind) -> Set<Int32> { months[kind.ordinal] }

    /// Empties the sink for the next batch, keeping its buffers' capacity.
    public mutating func reset() {
        for index in buffers.indices {
            buffers[index].removeAll(keepingCapacity: true)
            counts[index] = 0
            deviceRows[index] = 0
            bounds[index] = nil
            months[index].removeAll(keepingCapacity: true)
            lastDay[index] = Int64.min
        }
        rejects.removeAll(keepingCapacity: true)
        rowsRead = 0
        lineCounts = LineCounts()
        importNote = nil
    }
}
