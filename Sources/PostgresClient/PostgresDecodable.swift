public import Foundation

/// A Swift type that a result column can be decoded as. Decoding checks the column's type and
/// refuses mismatches (an `integer` column is not a `Bool`) with `PostgresError.Code.typeMismatch`.
public protocol PostgresDecodable {
    /// Decodes the column's text representation; `type` is the column's PostgreSQL type.
    static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Self>
    /// The value for SQL NULL; non-optional types return nil and so refuse NULL.
    static var nullValue: Self? { get }
}

/// The result of decoding one value: the value, or why it could not be decoded.
public enum DecodeOutcome<Value> {
    case value(Value)
    /// The column's type is not one this Swift type reads.
    case wrongType
    /// The type is right but the text is not a valid value (for example, out of range).
    case invalid(String)
}

extension PostgresDecodable {
    public static var nullValue: Self? { nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Wrapped?> {
        switch Wrapped.decode(postgresText: text, type: type) {
        case .value(let value): .value(value)
        case .wrongType: .wrongType
        case .invalid(let reason): .invalid(reason)
        }
    }

    public static var nullValue: Wrapped?? { .some(nil) }
}

extension String: PostgresDecodable {
    /// Any column reads as `String`: its PostgreSQL text representation.
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<String> {
        .value(text)
    }
}

extension Int: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Int> {
        guard type.isInteger || type == .unknown else { return .wrongType }
        return Int(text).map { .value($0) } ?? .invalid("\(text) is not an integer")
    }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Int32> {
        guard type.isInteger || type == .unknown else { return .wrongType }
        return Int32(text).map { .value($0) } ?? .invalid("\(text) does not fit a 32-bit integer")
    }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Int64> {
        guard type.isInteger || type == .unknown else { return .wrongType }
        return Int64(text).map { .value($0) } ?? .invalid("\(text) is not an integer")
    }
}

extension Double: PostgresDecodable {
    /// Reads `real`, `double precision`, `numeric` (rounded to the nearest double) and integers.
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Double> {
        guard type == .float4 || type == .float8 || type == .numeric || type.isInteger || type == .unknown
        else { return .wrongType }
        return Double(text).map { .value($0) } ?? .invalid("\(text) is not a number")
    }
}

extension Decimal: PostgresDecodable {
    /// Reads `numeric` and integers exactly (up to Decimal's 38 significant digits).
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Decimal> {
        guard type == .numeric || type.isInteger || type == .unknown else { return .wrongType }
        guard text != "NaN", let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { return .invalid("\(text) is not a finite decimal") }
        return .value(value)
    }
}

extension Bool: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Bool> {
        guard type == .bool || type == .unknown else { return .wrongType }
        switch text {
        case "t", "true": return .value(true)
        case "f", "false": return .value(false)
        default: return .invalid("\(text) is not a boolean")
        }
    }
}

extension Date: PostgresDecodable {
    /// Reads `timestamptz` (any offset) and `timestamp` (taken as UTC).
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<Date> {
        guard type == .timestamptz || type == .timestamp || type == .unknown else { return .wrongType }
        return PostgresTimestamp.parse(text).map { .value($0) } ?? .invalid("\(text) is not a timestamp")
    }
}

extension PostgresDate: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<PostgresDate> {
        guard type == .date || type == .unknown else { return .wrongType }
        return PostgresDate(text).map { .value($0) } ?? .invalid("\(text) is not a date")
    }
}

extension PostgresJSON: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresType) -> DecodeOutcome<PostgresJSON> {
        guard type == .json || type == .jsonb || type == .unknown else { return .wrongType }
        return .value(PostgresJSON(text: text))
    }
}
