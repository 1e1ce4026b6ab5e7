/// Parses one NDJSON line, a JSON object, into keys and values in a reusable byte store. Strings
/// are unescaped (including `\u` surrogate pairs) into UTF-8; numbers keep their text; a nested
/// object or array is checked (``JSONText``) and kept as its JSON text, tagged ``ValueTag/json``:
/// the encoder accepts it only for event properties.
struct JSONObjectParser {
    struct Entry {
        var keyStart: Int32
        var keyCount: Int32
        var value: FieldValue
    }

    enum Failure: Error, Equatable {
        case notAnObject
        case syntax(offset: Int, expected: String)
        case tooManyFields(Int)
    }

    private(set) var store: [UInt8] = []
    private(set) var entries: [Entry] = []
    let maxFields: Int

    /// Bytes reserved by the store (grows to the largest record seen, at most the record limit).
    var storeCapacity: Int { store.capacity }

    init(maxFields: Int) {
        self.maxFields = maxFields
        store.reserveCapacity(64 * 1024)
        entries.reserveCapacity(64)
    }

    /// Parses `line`; on success `entries` and `store` describe the object.
    mutating func parse(_ line: UnsafeBufferPointer<UInt8>) -> Failure? {
        store.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        let n = line.count
        var i = 0
        Self.skipSpace(line, &i)
        guard i < n && line[i] == 0x7b else { return .notAnObject }
        i += 1
        Self.skipSpace(line, &i)
        if i < n && line[i] == 0x7d {
            i += 1
            return Self.expectEnd(line, &i)
        }
        while true {
            Self.skipSpace(line, &i)
            guard i < n && line[i] == 0x22 else { return .syntax(offset: i, expected: "a key string") }
            let keyStart = store.count
            if let failure = parseString(line, &i) { return failure }
            let keyCount = store.count - keyStart
            Self.skipSpace(line, &i)
            guard i < n && line[i] == 0x3a else { return .syntax(offset: i, expected: "':'") }
            i += 1
            Self.skipSpace(line, &i)
            guard i < n else { return .syntax(offset: i, expected: "a value") }
            var value = FieldValue()
            let valueStart = store.count
            switch line[i] {
            case 0x22:
                if let failure = parseString(line, &i) { return failure }
                value.tag = .string
            case 0x7b, 0x5b:
                let nestedStart = i
                if let problem = JSONText.skipValue(line, &i, depth: 0) {
                    return .syntax(offset: problem.offset, expected: problem.expected)
                }
                store.append(contentsOf: UnsafeBufferPointer(rebasing: line[nestedStart..<i]))
                value.tag = .json
            case 0x74:
                guard Self.literal(line, &i, "true") else { return .syntax(offset: i, expected: "a value") }
                value.tag = .trueValue
            case 0x66:
                guard Self.literal(line, &i, "false") else { return .syntax(offset: i, expected: "a value") }
                value.tag = .falseValue
            case 0x6e:
                guard Self.literal(line, &i, "null") else { return .syntax(offset: i, expected: "a value") }
                value.tag = .absent
            default:
                let numberStart = i
                guard JSONText.skipNumber(line, &i) else { return .syntax(offset: numberStart, expected: "a value") }
                store.append(contentsOf: UnsafeBufferPointer(rebasing: line[numberStart..<i]))
                value.tag = .number
            }
            value.start = Int32(valueStart)
            value.count = Int32(store.count - valueStart)
            if entries.count >= maxFields { return .tooManyFields(maxFields) }
            entries.append(Entry(keyStart: Int32(keyStart), keyCount: Int32(keyCount), value: value))
            Self.skipSpace(line, &i)
            guard i < n else { return .syntax(offset: i, expected: "',' or '}'") }
            if line[i] == 0x2c {
                i += 1
                continue
            }
            guard line[i] == 0x7d else { return .syntax(offset: i, expected: "',' or '}'") }
            i += 1
            return Self.expectEnd(line, &i)
        }
    }

    @inline(__always)
    private static func skipSpace(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < p.count, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0d || p[i] == 0x0a { i += 1 }
    }

    private static func expectEnd(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Failure? {
        skipSpace(p, &i)
        return i == p.count ? nil : .syntax(offset: i, expected: "the end of the line")
    }

    private static func literal(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard i + count <= p.count else { return false }
        let w = word.utf8Start
        for k in 0..<count where p[i + k] != w[k] { return false }
        i += count
        return true
    }

    /// Parses the string at `p[i]` (an opening quote) and appends its UTF-8 to the store.
    /// Bytes are copied as they are (UTF-8 validity is checked per field later).
    private mutating func parseString(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Failure? {
        let n = p.count
        i += 1
        var run = i
        while i < n {
            let b = p[i]
            if b == 0x22 {
                store.append(contentsOf: UnsafeBufferPointer(rebasing: p[run..<i]))
                i += 1
                return nil
            }
            if b < 0x20 { return .syntax(offset: i, expected: "no control character inside a string") }
            if b != 0x5c {
                i += 1
                continue
            }
            store.append(contentsOf: UnsafeBufferPointer(rebasing: p[run..<i]))
            guard i + 1 < n else { break }
            let escape = p[i + 1]
            i += 2
            switch escape {
            case 0x22, 0x5c, 0x2f: store.append(escape)
            case UInt8(ascii: "b"): store.append(0x08)
            case UInt8(ascii: "f"): store.append(0x0c)
            case UInt8(ascii: "n"): store.append(0x0a)
            case UInt8(ascii: "r"): store.append(0x0d)
            case UInt8(ascii: "t"): store.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = JSONText.hex4(p, i) else { return .syntax(offset: i, expected: "4 hex digits") }
                i += 4
                if scalar >= 0xd800 && scalar <= 0xdbff {
                    guard i + 6 <= n, p[i] == 0x5c, p[i + 1] == UInt8(ascii: "u"),
                          let low = JSONText.hex4(p, i + 2), low >= 0xdc00 && low <= 0xdfff
                    else { return .syntax(offset: i, expected: "a low surrogate escape") }
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                } else if scalar >= 0xdc00 && scalar <= 0xdfff {
                    return .syntax(offset: i, expected: "a high surrogate before a low one")
                }
                appendUTF8(scalar)
            default:
                return .syntax(offset: i - 1, expected: "a valid escape")
            }
            run = i
        }
        return .syntax(offset: n, expected: "a closing quote")
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            store.append(UInt8(scalar))
        case 0x80..<0x800:
            store.append(UInt8(0xc0 | scalar >> 6))
            store.append(UInt8(0x80 | scalar & 0x3f))
        case 0x800..<0x10000:
            store.append(UInt8(0xe0 | scalar >> 12))
            store.append(UInt8(0x80 | scalar >> 6 & 0x3f))
            store.append(UInt8(0x80 | scalar & 0x3f))
        default:
            store.append(UInt8(0xf0 | scalar >> 18))
            store.append(UInt8(0x80 | scalar >> 12 & 0x3f))
            store.append(UInt8(0x80 | scalar >> 6 & 0x3f))
            store.append(UInt8(0x80 | scalar & 0x3f))
        }
    }
}

extension JSONObjectParser.Failure {
    /// The reason stored with the rejected row.
    var reason: String {
        switch self {
        case .notAnObject: "not a JSON object"
        case .syntax(let offset, let expected): "invalid JSON at column \(offset + 1): expected \(expected)"
        case .tooManyFields(let max): "more than \(max) fields"
        }
    }
}
