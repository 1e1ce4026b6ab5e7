import Foundation
import FunnelCore

/// A column's PostgreSQL type as binary COPY writes it.
enum BinaryColumn: Sendable, Equatable {
    case text
    case timestamptz
    case date
    case boolean
    case smallint
    case integer
    case bigint
    case real

    /// The column type named by `format_type` (`timestamp with time zone`, `integer`, ...), when
    /// binary COPY writes it.
    init?(typeName: String) {
        switch typeName {
        case "text": self = .text
        case "timestamp with time zone": self = .timestamptz
        case "date": self = .date
        case "boolean": self = .boolean
        case "smallint": self = .smallint
        case "integer": self = .integer
        case "bigint": self = .bigint
        case "real": self = .real
        default: return nil
        }
    }

    /// Whether a field validated as `type` can be written into a column of this type.
    func holds(_ type: CompiledType) -> Bool {
        switch type {
        case .identifier, .text, .country, .currency, .oneOf: self == .text
        case .timestamp: self == .timestamptz
        case .date: self == .date
        case .boolean: self == .boolean
        case .real: self == .real
        case .count(let limit):
            switch self {
            case .smallint: limit <= Int64(Int16.max)
            case .integer: limit <= Int64(Int32.max)
            case .bigint: true
            default: false
            }
        case .money, .signedMoney, .rate, .properties: false
        }
    }
}

/// How one kind's rows are written in PostgreSQL's binary COPY format instead of COPY text: the
/// type of each field's column, in `kind.fields` order. The server then reads each value as it
/// is stored instead of parsing text (the telemetry file of a history, 5.7M rows of 31 columns:
/// 15-19 s against 22-24 s for its COPY into the load table, in psql). Only for kinds whose every
/// field has a binary form here (not money, which is `numeric`, nor event properties, `jsonb`).
struct BinaryLayout: Sendable, Equatable {
    let kind: EventKind
    let columns: [BinaryColumn]

    /// The layout of `kind` for the columns named `typeNames` (`format_type` of each of the
    /// table's columns, by name), or nil when a field's column has a type written only as text or
    /// is not the type the field's validation produces.
    init?(kind: EventKind, typeNames: [String: String]) {
        let plan = KindPlan.all[kind.ordinal]
        var columns: [BinaryColumn] = []
        for (spec, type) in zip(plan.specs, plan.types) {
            guard let name = typeNames[spec.name], let column = BinaryColumn(typeName: name), column.holds(type) else {
                return nil
            }
            columns.append(column)
        }
        // Absent optional fields must be NULL: a default written as text (ad spend's) has no binary form here.
        guard plan.absent.allSatisfy({ $0 == Array("\\N".utf8) }) else { return nil }
        self.kind = kind
        self.columns = columns
    }
}

/// PostgreSQL's binary COPY format (`COPY ... FROM STDIN (FORMAT binary)`): a header, then each
/// row as a 16-bit field count followed by each field's 32-bit length (-1 for NULL) and bytes,
/// all integers big-endian.
enum BinaryCopy {
    /// The header every binary COPY stream starts with: the signature, no flags, no extension.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xff, 0x0d, 0x0a, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    /// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for timestamps.
    static let postgresEpochMicros: Int64 = 946_684_800_000_000
    /// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for dates.
    static let postgresEpochDays: Int64 = 10_957

    @inline(__always)
    static func appendInt16(_ value: Int16, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    @inline(__always)
    static func appendInt32(_ value: Int32, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    @inline(__always)
    static func appendInt64(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    /// A NULL field.
    @inline(__always)
    static func appendNull(to out: inout [UInt8]) { appendInt32(-1, to: &out) }

    /// A text field: its length, then its bytes as they are (no escaping).
    @inline(__always)
    static func appendText(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        appendInt32(Int32(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    /// An integer field of the column's width (the value is within the column's range).
    @inline(__always)
    static func appendInteger(_ value: Int64, column: BinaryColumn, to out: inout [UInt8]) {
        switch column {
        case .smallint:
            appendInt32(2, to: &out)
            appendInt16(Int16(value), to: &out)
        case .integer:
            appendInt32(4, to: &out)
            appendInt32(Int32(value), to: &out)
        default:
            appendInt32(8, to: &out)
            appendInt64(value, to: &out)
        }
    }

    /// A `real` field from its decimal text, as PostgreSQL's `float4in` reads it (`strtof`, the
    /// nearest float): a whole number of at most 7 digits is exact as a float, anything else goes
    /// through `strtof`.
    static func appendReal(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        appendInt32(4, to: &out)
        appendInt32(Int32(bitPattern: parseReal(bytes).bitPattern), to: &out)
    }

    /// A `real` of 0 (a value too small for the type, which COPY text writes as 0).
    static func appendRealZero(to out: inout [UInt8]) {
        appendInt32(4, to: &out)
        appendInt32(0, to: &out)
    }

    /// The float `strtof` reads from `bytes` (at most 64 bytes, already checked to be a decimal).
    static func parseReal(_ bytes: UnsafeBufferPointer<UInt8>) -> Float {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        if bytes.count - index > 0 && bytes.count - index <= 7 {
            var whole: Int32 = 0
            var digitsOnly = true
            for byte in bytes[index...] {
                guard byte >= 0x30 && byte <= 0x39 else { digitsOnly = false; break }
                whole = whole * 10 + Int32(byte - 0x30)
            }
            if digitsOnly { return negative ? -Float(whole) : Float(whole) }
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text in
            for (offset, byte) in bytes.enumerated() { text[offset] = CChar(bitPattern: byte) }
            text[bytes.count] = 0
            return strtof(text.baseAddress!, nil)
        }
    }

    /// Calls `body` with each row's range in `rows` (binary rows without the header) and the range
    /// of its first two fields with their lengths (the event key: id and app).
    static func forEachRow(_ rows: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>) -> Void) {
        var start = 0
        while start + 2 <= rows.count {
            let fields = Int(readInt16(rows, at: start))
            var position = start + 2
            var keyEnd = position
            for field in 0..<fields {
                let length = Int(readInt32(rows, at: position))
                position += 4 + max(length, 0)
                if field == 1 { keyEnd = position }
            }
            body(start..<position, (start + 2)..<keyEnd)
            start = position
        }
    }

    @inline(__always)
    static func readInt16(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int16 {
        Int16(bitPattern: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))
    }

    @inline(__always)
    static func readInt32(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int32 {
        Int32(bitPattern: UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3]))
    }
}
