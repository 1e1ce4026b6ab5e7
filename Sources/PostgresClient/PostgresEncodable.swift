import FunnelCalendar
public import Foundation

/// A Swift value that can be bound as a query parameter. Parameters are always sent separately
/// from the statement text (never spliced into SQL), in PostgreSQL's text format.
public protocol PostgresEncodable {
    /// The value's PostgreSQL text representation.
    var postgresText: String { get }
}

extension String: PostgresEncodable {
    public var postgresText: String { self }
}

extension Substring: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Double: PostgresEncodable {
    /// Shortest round-tripping form; `NaN`/`Infinity` as PostgreSQL spells them.
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return "\(self)"
    }
}

extension Bool: PostgresEncodable {
    public var postgresText: String { self ? "t" : "f" }
}

extension Decimal: PostgresEncodable {
    public var postgresText: String {
        var value = self
        return NSDecimalString(&value, Locale(identifier: "en_US_POSIX"))
    }
}

extension Date: PostgresEncodable {
    /// UTC with microseconds: `2024-05-01 10:00:00.000000+00`.
    public var postgresText: String { PostgresTimestamp.format(self) }
}

extension Array: PostgresEncodable where Element: PostgresEncodable {
    /// A one-dimensional array literal (`{"a","b"}`), every element quoted and escaped, so it
    /// binds to `text[]`, `bigint[]`, ... for `= any($1)`.
    public var postgresText: String {
        var text = "{"
        for (index, element) in enumerated() {
            if index > 0 { text += "," }
            text += "\""
            for character in element.postgresText {
                if character == "\"" || character == "\\" { text += "\\" }
                text.append(character)
            }
            text += "\""
        }
        return text + "}"
    }
}

/// A calendar date without a time or zone (PostgreSQL `date`).
public struct PostgresDate: Hashable, Comparable, Sendable, Codable, PostgresEncodable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var description: String {
        let y = String(year), m = String(month), d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-"
            + (m.count < 2 ? "0" : "") + m + "-" + (d.count < 2 ? "0" : "") + d
    }

    public var postgresText: String { description }

    public static func < (lhs: PostgresDate, rhs: PostgresDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// JSON text bound to or read from a `json`/`jsonb` column.
public struct PostgresJSON: Hashable, Sendable, PostgresEncodable {
    public let text: String
    public init(text: String) { self.text = text }

    /// Encodes a value with `JSONEncoder` (sorted keys, so equal values give equal text).
    public init(encoding value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        self.text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes the JSON text into a `Decodable` value.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    public var postgresText: String { text }
}

/// Formatting and parsing of PostgreSQL's ISO timestamp text (`DateStyle = ISO`).
enum PostgresTimestamp {
    static func format(_ date: Date) -> String {
        let totalMicros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var micros = Int64(totalMicros)
        var seconds = micros / 1_000_000
        micros %= 1_000_000
        if micros < 0 {
            micros += 1_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let civil = CivilTime.civil(fromDays: Int(days))
        let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
            + ".\(pad(micros, 6))+00"
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]]`; without an offset the time is UTC.
    static func parse(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2),
              let day = number(bytes, 8, 2), let hour = number(bytes, 11, 2),
              let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, let digit = digit(bytes[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            let sign: Int64
            switch bytes[index] {
            case UInt8(ascii: "+"): sign = 1
            case UInt8(ascii: "-"): sign = -1
            case UInt8(ascii: "Z"): sign = 0
            default: return nil
            }
            index += 1
            var parts: [Int64] = []
            while index < bytes.count, parts.count < 3 {
                guard let part = number(bytes, index, 2) else { return nil }
                parts.append(part)
                index += 2
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
            }
            let padded = parts + Array(repeating: 0, count: 3 - parts.count)
            offsetSeconds = sign * (padded[0] * 3600 + padded[1] * 60 + padded[2])
        }
        let days = Int64(CivilTime.days(year: Int(year), month: Int(month), day: Int(day)))
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        byte >= 48 && byte <= 57 ? Int64(byte - 48) : nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for index in start..<(start + count) {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
