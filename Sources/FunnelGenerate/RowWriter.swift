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
    private var column = 0
    private var rowStart = 0
    /// Per column: start of its separator/key, start and end of its value (-1 when absent).
    private var spans: [Int]
    private(set) var lastTimestampMs: Int64 = 0
    private var styleRandom: SeededRandom
    private var messRandom: SeededRandom
    let messiness: Messiness
    private var dirtyMaker: DirtyRowMaker?

    /// Rows written as events (first copies), duplicate copies, rows moved to the late file.
    private(set) var rows = 0
    private(set) var duplicates = 0
    private(set) var lateRows = 0
    private(set) var mainFileRows = 0
    private(set) var lateFileRows = 0
    private(set) var offsetTimestamps = 0
    private(set) var epochTimestamps = 0

    init(kind: EventKind, format: GeneratorFormat, main: OutputFile, late: OutputFile?,
         seed: UInt64, messiness: Messiness, dirty: Bool) {
        self.kind = kind
        self.format = format
        self.main = main
        self.late = late
        self.messiness = messiness
        columnCount = kind.fieldNames.count
        jsonKeys = kind.fieldNames.enumerated().map { index, name in
            Array("\(index == 0 ? "" : ",")\"\(name)\":".utf8)
        }
        spans = Array(repeating: -1, count: columnCount * 3)
        let stream = UInt64(EventKind.allCases.firstIndex(of: kind)!) &+ 1_000
        styleRandom = SeededRandom(seed: seed, stream: stream)
        messRandom = SeededRandom(seed: seed, stream: stream &+ 100)
        if dirty { dirtyMaker = DirtyRowMaker(kind: kind, format: format, seed: seed) }
        let header = format == .csv ? kind.fieldNames.joined(separator: ",") + "\n" : ""
        main.append(header)
        late?.append(header)
    }

    /// Invalid rows written, by defect, in defect order.
    var dirtyCounts: [(Defect, Int)] { dirtyMaker?.counts ?? [] }

    // MARK: Rows

    @inline(__always)
    func beginRow() {
        main.reserveRow()
        rowStart = main.count
        column = 0
        if format == .ndjson { put(UInt8(ascii: "{")) }
    }

    /// Ends the row and applies duplicates, late arrival and dirty rows.
    func endRow() {
        precondition(column == columnCount, "\(kind.name) row has \(column) of \(columnCount) fields")
        if format == .ndjson { put(UInt8(ascii: "}")) }
        put(UInt8(ascii: "\n"))
        rows += 1
        mainFileRows += 1
        let roll = messRandom.uniform()
        let row = UnsafeRawBufferPointer(start: main.buffer + rowStart, count: main.count - rowStart)
        if roll < messiness.lateShare, let late {
            late.append(row)
            main.count = rowStart
            lateRows += 1
            mainFileRows -= 1
            lateFileRows += 1
            return
        }
        if roll < messiness.lateShare + messiness.duplicateShare {
            duplicates += 1
            if let late, messRandom.chance(messiness.duplicateInLateFileShare) {
                late.append(row)
                lateFileRows += 1
            } else {
                main.append(row)
                mainFileRows += 1
            }
            return
        }
        if let maker = dirtyMaker {
            let before = maker.total
            maker.maybeWrite(after: row, spans: spans, rowStart: rowStart, timestampMs: lastTimestampMs, into: main)
            mainFileRows += maker.total - before
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
        let base = column * 3
        spans[base] = main.count
        if format == .csv {
            if column > 0 { put(UInt8(ascii: ",")) }
        } else {
            // Column 0 (event_id or app_id) is always present, so only its key lacks the comma.
            jsonKeys[column].withUnsafeBufferPointer { putBytes(UnsafeRawBufferPointer($0)) }
            if quoted { put(UInt8(ascii: "\"")) }
        }
        spans[base + 1] = main.count - (format == .ndjson && quoted ? 1 : 0)
    }

    @inline(__always)
    private func end(quoted: Bool) {
        if format == .ndjson && quoted { put(UInt8(ascii: "\"")) }
        spans[column * 3 + 2] = main.count
        column += 1
    }

    @inline(__always)
    private func putBytes(_ bytes: UnsafeRawBufferPointer) {
        UnsafeMutableRawPointer(main.buffer + main.count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        main.count += bytes.count
    }

    /// An absent optional field.
    func null() {
        let base = column * 3
        spans[base] = -1
        spans[base + 1] = -1
        spans[base + 2] = -1
        if format == .csv && column > 0 { put(UInt8(ascii: ",")) }
        column += 1
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
        lastTimestampMs = ms
        let roll = styleRandom.uniform()
        if roll < messiness.epochShare {
            epochTimestamps += 1
            begin(quoted: false)
            putInt(Int(ms))
            end(quoted: false)
            return
        }
        var offsetMinutes = 0
        if roll < messiness.epochShare + messiness.offsetShare {
            offsetTimestamps += 1
            offsetMinutes = Messiness.offsets[styleRandom.below(Messiness.offsets.count)]
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
