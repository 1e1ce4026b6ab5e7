import FunnelCalendar
public import FunnelCore
import Foundation

/// Splits one CSV input file into the rows dated before a cutoff day and the rows dated on or
/// after it, by the kind's time field (`EventKind.timeField`) read as a UTC instant or date.
///
/// `funnel bench daily` uses it to turn a generated data set into "history" and "the last day".
/// It streams: a fixed read buffer and the two output files' buffers, whatever the file size. Both
/// outputs start with the input's header line. Records may be quoted RFC 4180 style (a newline
/// inside quotes does not end the record). A row whose time field is missing or unreadable goes
/// to the "before" side and is counted; blank lines are dropped.
public struct DaySplitter: Sendable {
    /// Rows written to each side.
    public struct Counts: Sendable, Equatable {
        public var before = 0
        public var onOrAfter = 0
        /// Rows (among `before`) whose time field could not be read.
        public var unreadable = 0

        public init(before: Int = 0, onOrAfter: Int = 0, unreadable: Int = 0) {
            self.before = before
            self.onOrAfter = onOrAfter
            self.unreadable = unreadable
        }
    }

    /// Why a file could not be split.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case cannotRead(String)
        case noTimeField(path: String, field: String)

        public var description: String {
            switch self {
            case .cannotRead(let path): "cannot read \(path)"
            case .noTimeField(let path, let field): "\(path): the header has no \(field) column"
            }
        }
    }

    public let kind: EventKind
    /// Day number (days since 1970-01-01) of the first day that goes to the "on or after" side.
    let cutoffDay: Int

    /// A splitter at `cutoffDate` (`YYYY-MM-DD`, UTC); nil when that is not a date.
    public init?(kind: EventKind, cutoffDate: String) {
        guard let day = CivilTime.days(parsing: cutoffDate) else { return nil }
        self.kind = kind
        cutoffDay = day
    }

    /// Reads `input` and writes its rows into `before` and `onOrAfter` (both created or replaced).
    public func split(_ input: String, before: String, onOrAfter: String) throws -> Counts {
        guard let file = fopen(input, "rb") else { throw Failure.cannotRead(input) }
        defer { fclose(file) }
        let beforeFile = try OutputFile(path: before, gzip: false)
        let afterFile = try OutputFile(path: onOrAfter, gzip: false)
        var scanner = RecordScanner()
        var counts = Counts()
        var timeColumn: Int?
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        // Bytes of a record that started in an earlier read and is not complete yet.
        var carry: [UInt8] = []
        func handle(_ record: UnsafeRawBufferPointer) throws {
            guard let column = timeColumn else {
                let names = Self.fields(of: record).map { String(decoding: $0, as: UTF8.self) }
                guard let index = names.firstIndex(of: kind.timeField) else {
                    throw Failure.noTimeField(path: input, field: kind.timeField)
                }
                timeColumn = index
                beforeFile.append(record)
                afterFile.append(record)
                return
            }
            if record.count <= 1 { return }
            let day = Self.field(column, of: record).flatMap(Self.utcDay)
            if let day, day >= cutoffDay {
                afterFile.append(record)
                counts.onOrAfter += 1
            } else {
                beforeFile.append(record)
                counts.before += 1
                if day == nil { counts.unreadable += 1 }
            }
        }
        while true {
            let read = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, chunk, file) }
            if read == 0 {
                if ferror(file) != 0 { throw Failure.cannotRead(input) }
                break
            }
            try buffer.withUnsafeBytes { whole in
                let bytes = UnsafeRawBufferPointer(rebasing: whole[0..<read])
                var start = 0
                while let end = scanner.recordEnd(in: bytes, from: start) {
                    if carry.isEmpty {
                        try handle(UnsafeRawBufferPointer(rebasing: bytes[start...end]))
                    } else {
                        carry.append(contentsOf: bytes[start...end])
                        try carry.withUnsafeBytes { try handle($0) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    start = end + 1
                }
                carry.append(contentsOf: bytes[start...])
            }
        }
        if !carry.isEmpty {
            carry.append(UInt8(ascii: "\n"))
            try carry.withUnsafeBytes { try handle($0) }
        }
        try beforeFile.close()
        try afterFile.close()
        return counts
    }

    /// Finds record ends (a newline outside quotes), keeping the quote state across reads.
    struct RecordScanner {
        var insideQuotes = false

        /// The index of the newline ending the record under way at `start`, if this buffer holds it.
        mutating func recordEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
            var i = start
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    insideQuotes.toggle()
                } else if byte == UInt8(ascii: "\n") && !insideQuotes {
                    return i
                }
                i += 1
            }
            return nil
        }
    }

    /// The fields of a record (header), unquoted, without the line end.
    static func fields(of record: UnsafeRawBufferPointer) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var index = 0
        while let value = field(index, of: record) {
            result.append(value)
            index += 1
        }
        return result
    }

    /// Field `index` of a record, unquoted (a doubled quote inside quotes is one quote); nil when
    /// the record has fewer fields.
    static func field(_ index: Int, of record: UnsafeRawBufferPointer) -> [UInt8]? {
        var end = record.count
        while end > 0 && (record[end - 1] == UInt8(ascii: "\n") || record[end - 1] == UInt8(ascii: "\r")) { end -= 1 }
        var i = 0
        var current = 0
        while true {
            var value: [UInt8] = []
            var quoted = false
            while i < end {
                let byte = record[i]
                if quoted {
                    if byte == UInt8(ascii: "\"") {
                        if i + 1 < end && record[i + 1] == UInt8(ascii: "\"") {
                            value.append(byte)
                            i += 1
                        } else {
                            quoted = false
                        }
                    } else {
                        value.append(byte)
                    }
                } else if byte == UInt8(ascii: ",") {
                    break
                } else if byte == UInt8(ascii: "\"") && value.isEmpty {
                    quoted = true
                } else {
                    value.append(byte)
                }
                i += 1
            }
            if current == index { return value }
            if i >= end { return nil }
            i += 1
            current += 1
        }
    }

    /// The UTC day number of a time field: Unix epoch milliseconds (digits only), an RFC 3339
    /// instant (`Z`, `±HH:MM`, `±HHMM` or `±HH`; read as UTC without a zone), or a `YYYY-MM-DD`
    /// date.
    static func utcDay(_ text: [UInt8]) -> Int? {
        guard !text.isEmpty else { return nil }
        if text.count <= 15, text.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let ms = text.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
            return CivilTime.day(ofMs: ms)
        }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= text.count else { return nil }
            var value = 0
            for i in range {
                let digit = Int(text[i]) - 0x30
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), text.count >= 10, text[4] == UInt8(ascii: "-"),
              let month = number(5..<7), text[7] == UInt8(ascii: "-"), let day = number(8..<10),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        let date = CivilTime.days(year: year, month: month, day: day)
        if text.count == 10 { return date }
        guard text.count >= 19, let hour = number(11..<13), let minute = number(14..<16),
              let second = number(17..<19) else { return nil }
        var i = 19
        if i < text.count && text[i] == UInt8(ascii: ".") {
            i += 1
            while i < text.count, text[i] >= 0x30 && text[i] <= 0x39 { i += 1 }
        }
        var offsetSeconds = 0
        if i < text.count {
            let sign = text[i]
            if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
                guard i + 1 == text.count else { return nil }
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                let rest = Array(text[(i + 1)...].filter { $0 != UInt8(ascii: ":") })
                guard rest.count == 2 || rest.count == 4,
                      rest.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                let hours = Int(rest[0] - 0x30) * 10 + Int(rest[1] - 0x30)
                let minutes = rest.count == 4 ? Int(rest[2] - 0x30) * 10 + Int(rest[3] - 0x30) : 0
                offsetSeconds = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "+") ? 1 : -1)
            } else {
                return nil
            }
        }
        let seconds = Int64(date) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        return CivilTime.day(ofMs: seconds * 1000)
    }
}
