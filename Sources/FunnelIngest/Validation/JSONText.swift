/// Checks that bytes are one JSON value PostgreSQL's `jsonb` will accept, without building it:
/// RFC 8259 syntax, at most ``maxDepth`` levels of nesting, strings without raw control
/// characters, escapes that are valid and paired (a lone surrogate is refused), and no `\u0000`
/// (jsonb cannot hold it). UTF-8 validity is checked separately. Used for event properties, which
/// are stored as they were written (the text, not a re-encoding) and parsed by the server: a value
/// the server would refuse must be refused here, or the whole file's COPY would fail.
enum JSONText {
    /// Deepest nesting accepted (objects and arrays).
    static let maxDepth = 64

    /// Why the bytes are not an acceptable JSON value: the byte offset and what was expected.
    struct Problem: Equatable {
        var offset: Int
        var expected: String
    }

    /// Nil when `bytes` hold exactly one JSON object (white space around it allowed).
    static func objectProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> Problem? {
        var i = 0
        skipSpace(bytes, &i)
        guard i < bytes.count, bytes[i] == 0x7b else { return Problem(offset: i, expected: "a JSON object") }
        if let problem = skipValue(bytes, &i, depth: 0) { return problem }
        skipSpace(bytes, &i)
        return i == bytes.count ? nil : Problem(offset: i, expected: "the end of the object")
    }

    /// Moves `i` past the JSON value that starts at `p[i]`, or says why there is none.
    static func skipValue(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int, depth: Int) -> Problem? {
        let n = p.count
        guard i < n else { return Problem(offset: i, expected: "a value") }
        switch p[i] {
        case 0x7b, 0x5b:
            let isObject = p[i] == 0x7b
            let close: UInt8 = isObject ? 0x7d : 0x5d
            guard depth < maxDepth else { return Problem(offset: i, expected: "at most \(maxDepth) levels of nesting") }
            i += 1
            skipSpace(p, &i)
            if i < n && p[i] == close {
                i += 1
                return nil
            }
            while true {
                skipSpace(p, &i)
                if isObject {
                    guard i < n && p[i] == 0x22 else { return Problem(offset: i, expected: "a key string") }
                    if let problem = skipString(p, &i) { return problem }
                    skipSpace(p, &i)
                    guard i < n && p[i] == 0x3a else { return Problem(offset: i, expected: "':'") }
                    i += 1
                    skipSpace(p, &i)
                }
                if let problem = skipValue(p, &i, depth: depth + 1) { return problem }
                skipSpace(p, &i)
                guard i < n else { return Problem(offset: i, expected: isObject ? "',' or '}'" : "',' or ']'") }
                if p[i] == 0x2c {
                    i += 1
                    continue
                }
                guard p[i] == close else { return Problem(offset: i, expected: isObject ? "',' or '}'" : "',' or ']'") }
                i += 1
                return nil
            }
        case 0x22:
            return skipString(p, &i)
        case 0x74: return literal(p, &i, "true")
        case 0x66: return literal(p, &i, "false")
        case 0x6e: return literal(p, &i, "null")
        default:
            let start = i
            guard skipNumber(p, &i) else { return Problem(offset: start, expected: "a value") }
            return storableNumber(UnsafeBufferPointer(rebasing: p[start..<i])) ? nil
                : Problem(offset: start, expected: "a number of at most \(maxNumberDigits) digits with an exponent within ±\(maxExponent)")
        }
    }

    /// The most digits and the largest exponent a number may have: jsonb keeps numbers as
    /// `numeric`, which refuses far larger ones, so a number past these is refused here (far
    /// beyond any property value in practice).
    static let maxNumberDigits = 1000
    static let maxExponent = 1000

    private static func storableNumber(_ number: UnsafeBufferPointer<UInt8>) -> Bool {
        var digits = 0
        var exponent = 0
        var inExponent = false
        for byte in number {
            if byte == 0x65 || byte == 0x45 {
                inExponent = true
            } else if byte >= 0x30 && byte <= 0x39 {
                if inExponent {
                    exponent = exponent * 10 + Int(byte - 0x30)
                    if exponent > maxExponent { return false }
                } else {
                    digits += 1
                }
            }
        }
        return digits <= maxNumberDigits
    }

    static func skipSpace(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < p.count, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0d || p[i] == 0x0a { i += 1 }
    }

    private static func literal(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: StaticString) -> Problem? {
        let count = word.utf8CodeUnitCount
        guard i + count <= p.count else { return Problem(offset: i, expected: "a value") }
        let w = word.utf8Start
        for k in 0..<count where p[i + k] != w[k] { return Problem(offset: i, expected: "a value") }
        i += count
        return nil
    }

    /// JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func skipNumber(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
        let n = p.count
        func isDigit(_ k: Int) -> Bool { k < n && p[k] >= 0x30 && p[k] <= 0x39 }
        if i < n && p[i] == 0x2d { i += 1 }
        guard isDigit(i) else { return false }
        if p[i] == 0x30 { i += 1 } else { while isDigit(i) { i += 1 } }
        if i < n && p[i] == 0x2e {
            i += 1
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        if i < n && (p[i] == 0x65 || p[i] == 0x45) {
            i += 1
            if i < n && (p[i] == 0x2b || p[i] == 0x2d) { i += 1 }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        return true
    }

    private static func skipString(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Problem? {
        let n = p.count
        i += 1
        while i < n {
            let b = p[i]
            if b == 0x22 {
                i += 1
                return nil
            }
            if b < 0x20 { return Problem(offset: i, expected: "no control character inside a string") }
            guard b == 0x5c else {
                i += 1
                continue
            }
            guard i + 1 < n else { break }
            let escape = p[i + 1]
            i += 2
            switch escape {
            case 0x22, 0x5c, 0x2f, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"),
                 UInt8(ascii: "t"):
                continue
            case UInt8(ascii: "u"):
                guard let scalar = hex4(p, i) else { return Problem(offset: i, expected: "4 hex digits") }
                if scalar == 0 { return Problem(offset: i - 2, expected: "no \\u0000 (it cannot be stored)") }
                i += 4
                if scalar >= 0xd800 && scalar <= 0xdbff {
                    guard i + 6 <= n, p[i] == 0x5c, p[i + 1] == UInt8(ascii: "u"),
                          let low = hex4(p, i + 2), low >= 0xdc00 && low <= 0xdfff
                    else { return Problem(offset: i, expected: "a low surrogate escape") }
                    i += 6
                } else if scalar >= 0xdc00 && scalar <= 0xdfff {
                    return Problem(offset: i - 6, expected: "a high surrogate before a low one")
                }
            default:
                return Problem(offset: i - 1, expected: "a valid escape")
            }
        }
        return Problem(offset: n, expected: "a closing quote")
    }

    /// The value of 4 hex digits at `p[i]`, or nil.
    static func hex4(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32? {
        guard i + 4 <= p.count else { return nil }
        var value: UInt32 = 0
        for k in i..<i + 4 {
            let b = p[k]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }
}
