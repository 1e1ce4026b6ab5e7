import FunnelCalendar
import FunnelCore

/// Formats the rows of one kind into its file, as CSV or NDJSON, with no per-row allocation.
///
/// Fields are written in `kind.fieldNames` order, one call per column (`null()` for an absent
/// optional field). After each row the writer applies the planted messiness: it moves a share of
/// rows to the kind's late file, repeats a share (duplicates) and, in dirty mode, adds invalid rows.
final class RowWriter {
    let kind: EventKind
    let format: GeneratorFormat
    let main: OutputFile
    let late: OutputFile?
    private let columnCount: Int
    private let jsonKeys: [[UInt8]]
    /// Per column: start of its separator/key, start and end of its value (-1 when absent).
    private let spans: UnsafeMutablePointer<Int>
    let messiness: Messiness
    private let dirtyMaker: DirtyRowMaker?

    /// The mutable state of the writer. Like `OutputFile.count` it sits behind a pointer so the
    /// per-field hot path pays no dynamic exclusivity checks.
    private struct State {
        var column = 0
        var rowStart = 0
        var lastTimestampMs: Int64 = 0
        var serial = 0
        var styleRandom: SeededRandom
        var messRandom: SeededRandom
        var rows = 0
        var duplicates = 0
        var lateRows = 0
        var mainFileRows = 0
        var lateFileRows = 0
        var offsetTimestamps = 0
        var epochTimestamps = 0
    }
    private let state: UnsafeMutablePointer<State>

    /// Rows written as events (first copies).
    var rows: Int { state.pointee.rows }
    /// Duplicate copies written (same event id again, same file or the late file).
    var duplicates: Int { state.pointee.duplicates }
    /// Rows moved to the late file.
    var lateRows: Int { state.pointee.lateRows }
    var mainFileRows: Int { state.pointee.mainFileRows }
    var lateFileRows: Int { state.pointee.lateFileRows }
    var offsetTimestamps: Int { state.pointee.offsetTimestamps }
    var epochTimestamps: Int { state.pointee.epochTimestamps }

    /// The next event id number of this kind.
    @inline(__always)
    func nextSerial() -> Int {
        state.pointee.serial += 1
        return state.pointee.serial
    }

    init(kind: EventKind, format: GeneratorFormat, main: OutputFile, late: OutputFile?,
         seed: UInt64, messiness: Messiness, dirty: Bool) {
        self.kind = kind
        self.format = format
        self.main = main
        self.late = late
        self.messiness = messiness
        // The generated people all have user ids: no device_id column; nor the attribution below
        // the campaign (adset, creative), which the planted model does not have.
        let names = kind.fieldNames.filter { $0 != "device_id" && $0 != "adset" && $0 != "creative" }
        columnCount = names.count
        jsonKeys = names.enumerated().map { index, name in
            Array("\(index == 0 ? "" : ",")\"\(name)\":".utf8)
        }
        spans = .allocate(capacity: columnCount * 3)
        spans.initialize(repeating: -1, count: columnCount * 3)
        let stream = UInt64(EventKind.allCases.firstIndex(of: kind)!) &+ 1_000
        state = .allocate(capacity: 1)
        state.initialize(to: State(styleRandom: SeededRandom(seed: seed, stream: stream),
                                   messRandom: SeededRandom(seed: seed, stream: stream &+ 100)))
        dirtyMaker = dirty ? DirtyRowMaker(kind: kind, format: format, seed: seed) : nil
        let header = format == .csv ? names.joined(separator: ",") + "\n" : ""
        main.append(header)
        late?.append(header)
    }

    deinit {
        spans.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Invalid rows written, by defect, in defect order.
    var dirtyCounts: [(Defect, Int)] { dirtyMaker?.counts ?? [] }

    // MARK: Rows

    @inline(__always)
    func beginRow() {
        main.reserveRow()
        state.pointee.rowStart = main.count
        state.pointee.column = 0
        if format == .ndjson { put(UInt8(ascii: "{")) }
    }

    /// Ends the row and applies duplicates, late arrival and dirty rows.
    func endRow() {
        precondition(state.pointee.column == columnCount, "\(kind.name) row has \(state.pointee.column) of \(columnCount) fields")
        if format == .ndjson { put(UInt8(ascii: "}")) }
        put(UInt8(ascii: "\n"))
        state.pointee.rows += 1
        state.pointee.mainFileRows += 1
        let roll = state.pointee.messRandom.uniform()
        let row = UnsafeRawBufferPointer(start: main.buffer + state.pointee.rowStart, count: main.count - state.pointee.rowStart)
        if roll < messiness.lateShare, let late {
            late.append(row)
            main.count = state.pointee.rowStart
            state.pointee.lateRows += 1
            state.pointee.mainFileRows -= 1
            state.pointee.lateFileRows += 1
            return
        }
        if roll < messiness.lateShare + messiness.duplicateShare {
            state.pointee.duplicates += 1
            if let late, state.pointee.messRandom.chance(messiness.duplicateInLateFileShare) {
                late.append(row)
                state.pointee.lateFileRows += 1
            } else {
                main.append(row)
                state.pointee.mainFileRows += 1
            }
            return
        }
        if let maker = dirtyMaker {
            let before = maker.total
            maker.maybeWrite(after: row, spans: UnsafeBufferPointer(start: spans, count: columnCount * 3), rowStart: state.pointee.rowStart, timestampMs: state.pointee.lastTimestampMs, into: main)
            state.pointee.mainFileRows += maker.total - before
        }
    }

    // MARK: Fields

    @inline(__always)
    private func put(_ byte: UInt8) {
        main.buffer[main.count] = byte
        main.count += 1
    }

    @inline(__always)
    private func begin(quoted: Bool) {
        let base = state.pointee.column * 3
        spans[base] = main.count
        if format == .csv {
            if state.pointee.column > 0 { put(UInt8(ascii: ",")) }
        } else {
            // Column 0 (event_id or app_id) is always present, so only its key lacks the comma.
            jsonKeys[state.pointee.column].withUnsafeBufferPointer { putBytes(UnsafeRawBufferPointer($0)) }
            if quoted { put(UInt8(ascii: "\"")) }
        }
        spans[base + 1] = main.count - (format == .ndjson && quoted ? 1 : 0)
    }

    @inline(__always)
    private func end(quoted: Bool) {
        if format == .ndjson && quoted { put(UInt8(ascii: "\"")) }
        spans[state.pointee.column * 3 + 2] = main.count
        state.pointee.column += 1
    }

    @inline(__always)
    private func putBytes(_ bytes: UnsafeRawBufferPointer) {
        UnsafeMutableRawPointer(main.buffer + main.count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        main.count += bytes.count
    }

    /// An absent optional field.
    func null() {
        let base = state.pointee.column * 3
        spans[base] = -1
        spans[base + 1] = -1
        spans[base + 2] = -1
        if format == .csv && state.pointee.column > 0 { put(UInt8(ascii: ",")) }
        state.pointee.column += 1
    }

    /// A text field from a literal.
    func text(_ value: StaticString) {
        begin(quoted: true)
        putBytes(UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
        end(quoted: true)
    }

    /// A text field from pre-encoded bytes (names from the model's tables).
    func text(_ value: [UInt8]) {
        begin(quoted: true)
        value.withUnsafeBufferPointer { putBytes(UnsafeRawBufferPointer($0)) }
        end(quoted: true)
    }

    /// An identifier: a literal prefix and a number (`u123`, `inv45`).
    func id(_ prefix: StaticString, _ number: Int) {
        begin(quoted: true)
        putBytes(UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        putInt(number)
        end(quoted: true)
    }

    /// A whole number.
    func int(_ value: Int) {
        begin(quoted: false)
        putInt(value)
        end(quoted: false)
    }

    /// A decimal given in units of 10^-places (`decimal(1999, places: 2)` is 19.99).
    /// With `trim`, a zero fraction is left out (geometry: `291` rather than `291.0`).
    func decimal(_ scaled: Int, places: Int, trim: Bool = false) {
        begin(quoted: false)
        putDecimal(scaled, places: places, trim: trim)
        end(quoted: false)
    }

    /// `true` or `false`.
    func bool(_ value: Bool) {
        begin(quoted: false)
        if value {
            put(UInt8(ascii: "t")); put(UInt8(ascii: "r")); put(UInt8(ascii: "u")); put(UInt8(ascii: "e"))
        } else {
            put(UInt8(ascii: "f")); put(UInt8(ascii: "a")); put(UInt8(ascii: "l")); put(UInt8(ascii: "s"))
            put(UInt8(ascii: "e"))
        }
        end(quoted: false)
    }

    /// A calendar date `YYYY-MM-DD` of a day number.
    func date(days: Int) {
        begin(quoted: true)
        putDate(days: days)
        end(quoted: true)
    }

    /// An instant, mostly RFC 3339 in UTC (`Z`), a planted share with a non-UTC offset denoting
    /// the same instant, a few as epoch milliseconds. `fraction` writes milliseconds.
    func timestamp(ms: Int64, fraction: Bool = false) {
        state.pointee.lastTimestampMs = ms
        let roll = state.pointee.styleRandom.uniform()
        if roll < messiness.epochShare {
            state.pointee.epochTimestamps += 1
            begin(quoted: false)
            putInt(Int(ms))
            end(quoted: false)
            return
        }
        var offsetMinutes = 0
        if roll < messiness.epochShare + messiness.offsetShare {
            state.pointee.offsetTimestamps += 1
            offsetMinutes = Messiness.offsets[state.pointee.styleRandom.below(Messiness.offsets.count)]
        }
        begin(quoted: true)
        putTimestamp(ms: ms, offsetMinutes: offsetMinutes, fraction: fraction, zone: true)
        end(quoted: true)
    }

    // MARK: Number formatting

    @inline(__always)
    private func putInt(_ value: Int) {
        var v = value
        if v < 0 { put(UInt8(ascii: "-")); v = -v }
        if v < 10 { put(UInt8(truncatingIfNeeded: 48 + v)); return }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let count = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var n = 0
            while v > 0 {
                scratch[23 - n] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
                n += 1
            }
            UnsafeMutableRawPointer(main.buffer + main.count)
                .copyMemory(from: scratch.baseAddress! + 24 - n, byteCount: n)
            return n
        }
        main.count += count
    }

    @inline(__always)
    private func putTwo(_ value: Int) {
        put(UInt8(truncatingIfNeeded: 48 + value / 10))
        put(UInt8(truncatingIfNeeded: 48 + value % 10))
    }

    private func putDecimal(_ scaled: Int, places: Int, trim: Bool) {
        var v = scaled
        if v < 0 { put(UInt8(ascii: "-")); v = -v }
        var unit = 1
        for _ in 0..<places { unit *= 10 }
        putInt(v / unit)
        let fraction = v % unit
        if places == 0 || (trim && fraction == 0) { return }
        put(UInt8(ascii: "."))
        var divisor = unit / 10
        while divisor > 0 {
            put(UInt8(truncatingIfNeeded: 48 + (fraction / divisor) % 10))
            divisor /= 10
        }
    }

    private func putDate(days: Int) {
        let (y, m, d) = CivilTime.civil(fromDays: days)
        putTwo(y / 100); putTwo(y % 100)
        put(UInt8(ascii: "-")); putTwo(m)
        put(UInt8(ascii: "-")); putTwo(d)
    }

    func putTimestamp(ms: Int64, offsetMinutes: Int, fraction: Bool, zone: Bool) {
        let local = ms + Int64(offsetMinutes) * 60_000
        let day = CivilTime.day(ofMs: local)
        let msOfDay = Int(local - Int64(day) * CivilTime.msPerDay)
        putDate(days: day)
        put(UInt8(ascii: "T"))
        let seconds = msOfDay / 1000
        putTwo(seconds / 3600); put(UInt8(ascii: ":"))
        putTwo(seconds / 60 % 60); put(UInt8(ascii: ":"))
        putTwo(seconds % 60)
        if fraction {
            let milli = msOfDay % 1000
            put(UInt8(ascii: "."))
            put(UInt8(truncatingIfNeeded: 48 + milli / 100))
            putTwo(milli % 100)
        }
        guard zone else { return }
        if offsetMinutes == 0 { put(UInt8(ascii: "Z")); return }
        put(offsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let magnitude = abs(offsetMinutes)
        putTwo(magnitude / 60); put(UInt8(ascii: ":")); putTwo(magnitude % 60)
    }

    /// Flushes and closes the main and late files.
    func close() throws {
        try main.close()
        try late?.close()
    }
}
