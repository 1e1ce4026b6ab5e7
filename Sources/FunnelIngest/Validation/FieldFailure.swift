import FunnelCore

/// Why one field of a row failed validation. Built on the hot path without allocating; the
/// reason text is only rendered for rejected rows.
enum FieldFailure: Error, Equatable {
    case missing
    /// Neither `user_id` nor `device_id`: the row names no person.
    case missingPerson
    /// A `user_id` that begins with the prefix of device-only person ids.
    case reservedPrefix
    case invalidUTF8
    case nul
    case controlCharacter
    case tooLong(bytes: Int)
    case jsonType(String)
    case noTimeZone
    case notTimestamp
    case notCalendarTime
    case tooEarly
    /// Epoch seconds where milliseconds are expected (the instant would fall in 1970).
    case epochSeconds
    case tooLate
    case notDate
    case negative
    case notWholeNumber
    case tooLarge(limit: String)
    case notDecimal
    case tooManyDecimals
    /// An exchange rate with more than 10 decimal places.
    case tooManyRateDecimals
    /// An exchange rate of 0.
    case notPositive
    case notFinite
    case outOfRange
    case notBoolean
    case notCountry
    case notCurrency
    case notOneOf
    /// `phase` does not belong to the row's `type` (its phases, or none).
    case phaseOfType(type: String, phases: [String])
    /// A nested object or array where a scalar is expected.
    case nested
    /// Event properties that are not one JSON object jsonb accepts.
    case notJSONObject(JSONText.Problem)
}

/// A rejected row's failure: the field it concerns (an index into the kind's fields) and why.
struct RowFailure: Equatable {
    var field: Int
    var failure: FieldFailure
}

extension FieldFailure {
    /// The reason stored with a rejected row, e.g.
    /// `country: "XX" is not an ISO 3166-1 alpha-2 code`.
    func reason(field spec: FieldSpec, value: UnsafeBufferPointer<UInt8>) -> String {
        let name = spec.name
        let shown = "\"\(UTF8Check.displayText(value, limit: 64))\""
        switch self {
        case .missing: return "missing required field \(name)"
        case .missingPerson:
            return "missing required field \(name) (or device_id): a row needs the app's user id or a device id"
        case .reservedPrefix:
            return "\(name): \(shown) begins with \"\(EventKind.devicePersonPrefix)\", which funnel keeps for device-only users; "
                + "give a device id in device_id instead"
        case .invalidUTF8: return "\(name): not valid UTF-8"
        case .nul: return "\(name): contains a NUL byte"
        case .controlCharacter: return "\(name): \(shown) contains a control character"
        case .tooLong(let bytes): return "\(name): longer than \(bytes) bytes"
        case .jsonType(let found): return "\(name): expected \(Self.expected(spec.type)), not \(found)"
        case .noTimeZone:
            return "\(name): \(shown) has no time zone (use RFC 3339 like 2024-05-01T10:00:00Z, or pass --assume-tz)"
        case .notTimestamp:
            return "\(name): \(shown) is not a timestamp (use RFC 3339 like 2024-05-01T10:00:00Z or Unix epoch milliseconds)"
        case .notCalendarTime: return "\(name): \(shown) is not a valid date and time"
        case .tooEarly: return "\(name): \(shown) is before 1970-01-01 (the Unix epoch, the earliest date funnel accepts)"
        case .epochSeconds:
            return "\(name): \(shown) looks like Unix epoch seconds; epoch timestamps must be in milliseconds"
        case .tooLate: return "\(name): \(shown) is more than 2 days in the future"
        case .notDate: return "\(name): \(shown) is not a date (use YYYY-MM-DD)"
        case .negative: return "\(name): \(shown) is negative"
        case .notWholeNumber: return "\(name): \(shown) is not a whole number"
        case .tooLarge(let limit): return "\(name): \(shown) is larger than \(limit)"
        case .notDecimal: return "\(name): \(shown) is not a decimal number"
        case .tooManyDecimals: return "\(name): \(shown) has more than 6 decimal places"
        case .tooManyRateDecimals: return "\(name): \(shown) has more than 10 decimal places"
        case .notPositive: return "\(name): \(shown) is not above 0"
        case .notFinite: return "\(name): \(shown) is not a finite decimal number"
        case .outOfRange: return "\(name): \(shown) is out of range"
        case .notBoolean: return "\(name): \(shown) is not a boolean (use true/false or 1/0)"
        case .notCountry: return "\(name): \(shown) is not an ISO 3166-1 alpha-2 code"
        case .notCurrency: return "\(name): \(shown) is not an ISO 4217 currency code"
        case .notOneOf:
            guard case .oneOf(let values) = spec.type else { return "\(name): \(shown) is not allowed" }
            return "\(name): \(shown) is not one of \(values.joined(separator: ", "))"
        case .phaseOfType(let type, let phases):
            if phases.isEmpty { return "\(name): \(shown) is given for type \(type), which has no phases" }
            return "\(name): \(shown) is not a phase of type \(type) (\(phases.joined(separator: ", ")))"
        case .nested: return "\(name): nested objects and arrays are not supported"
        case .notJSONObject(let problem):
            return "\(name): not a JSON object: expected \(problem.expected) at character \(problem.offset + 1)"
        }
    }

    private static func expected(_ type: FieldType) -> String {
        switch type {
        case .identifier, .text, .country, .currency, .oneOf: "a string"
        case .timestamp: "a timestamp string or epoch milliseconds"
        case .date: "a date string"
        case .count, .money, .signedMoney, .rate, .real: "a number"
        case .boolean: "a boolean"
        case .properties: "a JSON object"
        }
    }
}
