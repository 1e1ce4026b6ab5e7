/// The text form of funnel steps, exclusions and windows, as `funnel query funnel` takes them:
///
/// - a step: `signup_completed`, `signup_completed where method = email and plan in (pro, team)`,
///   or any of several events, `app_open | push_opened`;
/// - conditions: `=`, `!=`, `in (a, b)`, `not in (a, b)`, `contains`, `not contains`, `~` and
///   `!~` (regular expressions), `>` and `<` (numbers), `is set`, `is not set`; a value with
///   spaces or symbols is quoted, `'Sign up'`;
/// - an exclusion: a step, then optionally `between 1 and 3` (steps, 1-based; default the
///   whole funnel);
/// - a window: a number and a unit, `45s`, `30m`, `1h`, `7d`, `2w`, `1mo` (or the unit spelt out;
///   a month is 31 days, as in PostHog).
public enum FunnelSyntax {
    /// A piece of funnel text that cannot be read, with what was expected.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var text: String
        public var message: String

        public init(text: String, message: String) {
            self.text = text
            self.message = message
        }

        public var description: String { "\"\(text)\": \(message)" }
    }

    /// Reads a step.
    public static func matcher(_ text: String) throws(Failure) -> EventMatcher {
        var reader = try Reader(text)
        let matcher = try reader.matcher()
        try reader.expectEnd()
        return matcher
    }

    /// Reads an exclusion of a funnel with `stepCount` steps.
    public static func exclusion(_ text: String, stepCount: Int) throws(Failure) -> FunnelExclusion {
        var reader = try Reader(text)
        let matcher = try reader.matcher()
        var from = 1
        var to = stepCount
        if reader.accept(word: "between") {
            from = try reader.integer()
            guard reader.accept(word: "and") else { throw reader.failure("expected 'and' after 'between \(from)'") }
            to = try reader.integer()
        }
        try reader.expectEnd()
        return FunnelExclusion(matcher: matcher, fromStep: from, toStep: to)
    }

    /// Reads a window such as `30m` into microseconds.
    public static func window(_ text: String) throws(Failure) -> Int64 {
        let trimmed = text.trimmingSpaces
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let unit = trimmed.dropFirst(digits.count).trimmingSpaces.lowercased()
        let seconds: Int64? = switch unit {
        case "s", "sec", "second", "seconds": 1
        case "m", "min", "minute", "minutes": 60
        case "h", "hour", "hours": 3_600
        case "d", "day", "days": 86_400
        case "w", "week", "weeks": 604_800
        case "mo", "month", "months": 2_678_400  // 31 days, as PostHog counts a month
        default: nil
        }
        guard let count = Int64(digits), let seconds else {
            throw Failure(text: text, message: "not a window; use a number and a unit: 45s, 30m, 1h, 7d, 2w, 1mo")
        }
        guard count > 0 else { throw Failure(text: text, message: "the window must be longer than 0") }
        guard count <= 3_650 * 86_400 / seconds else { throw Failure(text: text, message: "the window is longer than 10 years") }
        return count * seconds * 1_000_000
    }

    /// Whether `text` is a decimal number literal, as `>` and `<` compare with: an optional sign,
    /// digits with an optional fraction (or a fraction alone, `.5`), an optional exponent (`1e3`,
    /// at most 1000).
    /// Hexadecimal, `inf`, `nan`, spaces and digit separators are not numbers here.
    public static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes
            let count = digits()
            // PostgreSQL's numeric overflows far beyond an exponent of 1000.
            let significant = exponent.prefix(count).drop { $0 == UInt8(ascii: "0") }
            guard count > 0, significant.count <= 4,
                  Int(String(decoding: significant, as: UTF8.self)) ?? 0 <= 1000 else { return false }
        }
        return bytes.isEmpty
    }

    /// Tokens of funnel text: words (bare or quoted) and symbols.
    struct Reader {
        enum Token: Equatable {
            case word(String, quoted: Bool)
            case symbol(String)
        }

        let text: String
        var tokens: [Token] = []
        var position = 0

        init(_ text: String) throws(Failure) {
            self.text = text
            var characters = Array(text)[...]
            while let first = characters.first {
                if first.isWhitespace {
                    characters.removeFirst()
                } else if first == "'" || first == "\"" {
                    characters.removeFirst()
                    guard let close = characters.firstIndex(of: first) else {
                        throw Failure(text: text, message: "a quoted value is not closed")
                    }
                    tokens.append(.word(String(characters[..<close]), quoted: true))
                    characters = characters[(close + 1)...]
                } else if let symbol = ["!=", "!~", "=", "~", ">", "<", "(", ")", ",", "|"].first(where: {
                    characters.starts(with: Array($0))
                }) {
                    tokens.append(.symbol(symbol))
                    characters.removeFirst(symbol.count)
                } else {
                    let word = characters.prefix { !$0.isWhitespace && !"!=~<>(),|'\"".contains($0) }
                    tokens.append(.word(String(word), quoted: false))
                    characters.removeFirst(word.count)
                }
            }
        }

        func failure(_ message: String) -> Failure { Failure(text: text, message: message) }

        var peek: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func accept(word: String) -> Bool {
            if case .word(let found, quoted: false) = peek, found.lowercased() == word {
                position += 1
                return true
            }
            return false
        }

        mutating func accept(symbol: String) -> Bool {
            if peek == .symbol(symbol) {
                position += 1
                return true
            }
            return false
        }

        mutating func value(_ what: String) throws(Failure) -> String {
            guard case .word(let found, _) = peek else { throw failure("expected \(what)") }
            position += 1
            return found
        }

        mutating func integer() throws(Failure) -> Int {
            let word = try value("a step number")
            guard let number = Int(word) else { throw failure("expected a step number, not '\(word)'") }
            return number
        }

        mutating func expectEnd() throws(Failure) {
            guard let extra = peek else { return }
            switch extra {
            case .word(let word, _): throw failure("unexpected '\(word)' (conditions are joined with 'and')")
            case .symbol(let symbol): throw failure("unexpected '\(symbol)'")
            }
        }

        mutating func matcher() throws(Failure) -> EventMatcher {
            var events = [try value("an event name")]
            while accept(symbol: "|") || accept(word: "or") {
                events.append(try value("an event name after '|'"))
            }
            var filters: [PropertyFilter] = []
            if accept(word: "where") {
                repeat {
                    filters.append(try condition())
                } while accept(word: "and")
            }
            return EventMatcher(events: events, filters: filters)
        }

        mutating func list() throws(Failure) -> [String] {
            guard accept(symbol: "(") else { throw failure("expected '(' and a list of values") }
            var values = [try value("a value")]
            while accept(symbol: ",") { values.append(try value("a value after ','")) }
            guard accept(symbol: ")") else { throw failure("expected ')' to close the list") }
            return values
        }

        mutating func number() throws(Failure) -> String {
            let word = try value("a number")
            guard FunnelSyntax.isDecimalNumber(word) else {
                throw failure("expected a decimal number such as 10, -2.5 or 1e3 after '>' or '<', not '\(word)'")
            }
            return word
        }

        mutating func condition() throws(Failure) -> PropertyFilter {
            let key = try value("a property name after 'where'")
            if accept(symbol: "=") { return PropertyFilter(key: key, op: .equals, values: [try value("a value after '='")]) }
            if accept(symbol: "!=") { return PropertyFilter(key: key, op: .notEquals, values: [try value("a value after '!='")]) }
            if accept(symbol: "~") { return PropertyFilter(key: key, op: .regex, values: [try value("a pattern after '~'")]) }
            if accept(symbol: "!~") { return PropertyFilter(key: key, op: .notRegex, values: [try value("a pattern after '!~'")]) }
            if accept(symbol: ">") { return PropertyFilter(key: key, op: .greaterThan, values: [try number()]) }
            if accept(symbol: "<") { return PropertyFilter(key: key, op: .lessThan, values: [try number()]) }
            if accept(word: "in") { return PropertyFilter(key: key, op: .equals, values: try list()) }
            if accept(word: "contains") {
                return PropertyFilter(key: key, op: .contains, values: [try value("a value after 'contains'")])
            }
            if accept(word: "is") {
                if accept(word: "set") { return PropertyFilter(key: key, op: .isSet) }
                if accept(word: "not") && accept(word: "set") { return PropertyFilter(key: key, op: .isNotSet) }
                throw failure("expected 'is set' or 'is not set' after \(key)")
            }
            if accept(word: "not") {
                if accept(word: "in") { return PropertyFilter(key: key, op: .notEquals, values: try list()) }
                if accept(word: "contains") {
                    return PropertyFilter(key: key, op: .notContains, values: [try value("a value after 'not contains'")])
                }
            }
            throw failure("expected an operator after \(key): =, !=, in (...), not in (...), contains, not contains, ~, !~, >, <, is set, is not set")
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
