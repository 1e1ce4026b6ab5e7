/// A value of the TOML subset funnel's configuration file uses.
public enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case array([TOMLValue])

    /// How the value is spelled in error messages.
    var shown: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .integer(let number): String(number)
        case .float(let number): String(number)
        case .boolean(let flag): String(flag)
        case .array(let items): "[" + items.map(\.shown).joined(separator: ", ") + "]"
        }
    }
}

/// One table of a TOML document: its header (`""` for the top level, `funnel` for `[funnel]`),
/// its keys in file order, and the line each key was on.
public struct TOMLTable: Sendable, Equatable {
    public var name: String
    public var line: Int
    public var values: [String: TOMLValue] = [:]
    public var keyLines: [String: Int] = [:]
    public var keyOrder: [String] = []
    /// An entry of a `[[name]]` array of tables (not a `[name]` table).
    public var isArrayEntry = false
    /// Which entry of its `[[name]]` array, 0-based.
    public var entry = 0

    /// A key of this table in the dotted form errors name (`funnels[2].name`, `ltv.horizons`).
    func dotted(_ key: String) -> String {
        if name.isEmpty { return key }
        return isArrayEntry ? "\(name)[\(entry)].\(key)" : "\(name).\(key)"
    }
}

/// A parser for the small TOML subset funnel.toml needs: `[table]` and `[[array-of-tables]]`
/// headers, `key = value` with basic strings, integers, floats, booleans and (possibly
/// multi-line) arrays of those, and `#` comments. Dotted keys, inline tables, dates and literal
/// strings are not part of the subset and are refused with their line number.
public struct TOMLSubset: Sendable {
    /// The top-level keys, every `[table]`, and every `[[table]]` entry, in file order.
    public private(set) var tables: [TOMLTable] = []

    public init(parsing text: String) throws(ConfigurationError) {
        var current = TOMLTable(name: "", line: 0)
        var seenTables: Set<String> = [""]
        var pending: (key: String, text: String, line: Int)?
        var entries: [String: Int] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (offset, rawLine) in lines.enumerated() {
            let lineNumber = offset + 1
            let line = Self.stripComment(rawLine).trimmingWhitespace()
            if var open = pending {
                open.text += " " + line
                if Self.bracketsBalanced(open.text) {
                    current.set(open.key, try Self.value(open.text, line: open.line, key: current.dotted(open.key)), line: open.line)
                    pending = nil
                } else {
                    pending = open
                }
                continue
            }
            if line.isEmpty { continue }
            if line.hasPrefix("[[") {
                guard line.hasSuffix("]]") else { throw .syntax(line: lineNumber, "a table array header ends with ]]") }
                let name = String(line.dropFirst(2).dropLast(2)).trimmingWhitespace()
                try Self.checkTableName(name, line: lineNumber)
                tables.append(current)
                current = TOMLTable(name: name, line: lineNumber)
                current.isArrayEntry = true
                current.entry = entries[name, default: 0]
                entries[name] = current.entry + 1
                continue
            }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw .syntax(line: lineNumber, "a table header ends with ]") }
                let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
                try Self.checkTableName(name, line: lineNumber)
                guard seenTables.insert(name).inserted else {
                    throw .syntax(line: lineNumber, "table [\(name)] appears twice")
                }
                tables.append(current)
                current = TOMLTable(name: name, line: lineNumber)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .syntax(line: lineNumber, "expected `key = value`, a [table] or a comment")
            }
            let key = String(line[..<equals]).trimmingWhitespace()
            let valueText = String(line[line.index(after: equals)...]).trimmingWhitespace()
            try Self.checkName(key, line: lineNumber)
            guard current.values[key] == nil else {
                throw .syntax(line: lineNumber, "key \(key) appears twice in the same table")
            }
            if valueText.hasPrefix("["), !Self.bracketsBalanced(valueText) {
                pending = (key, valueText, lineNumber)
                continue
            }
            current.set(key, try Self.value(valueText, line: lineNumber, key: current.dotted(key)), line: lineNumber)
        }
        if let open = pending { throw .syntax(line: open.line, "the array of \(open.key) is never closed") }
        tables.append(current)
    }

    /// A table header's name: plain keys joined by dots (`ingest`, `ingest.files`).
    private static func checkTableName(_ name: String, line: Int) throws(ConfigurationError) {
        for part in name.split(separator: ".", omittingEmptySubsequences: false) {
            try checkName(String(part), line: line)
        }
    }

    private static func checkName(_ name: String, line: Int) throws(ConfigurationError) {
        let allowed = name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        guard !name.isEmpty, allowed else {
            throw .syntax(line: line, "\"\(name)\" is not a plain key (letters, digits, _ and -)")
        }
    }

    private static func stripComment(_ line: String) -> String {
        var inString = false
        var escaped = false
        var result = ""
        for character in line {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "#" {
                break
            }
            result.append(character)
        }
        return result
    }

    private static func bracketsBalanced(_ text: String) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for character in text {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth -= 1
            }
        }
        return depth <= 0
    }

    /// The value `text` of `key` (dotted, for errors) on `line`.
    static func value(_ text: String, line: Int, key: String? = nil) throws(ConfigurationError) -> TOMLValue {
        var scanner = ValueScanner(text: Array(text), line: line, key: key)
        let value = try scanner.parseValue()
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw .syntax(line: line, "unexpected text after the value: \(text)") }
        return value
    }
}

private struct ValueScanner {
    let text: [Character]
    let line: Int
    /// The key whose value this is (dotted), named by errors inside strings.
    let key: String?
    var index = 0

    var atEnd: Bool { index >= text.count }

    mutating func skipWhitespace() {
        while index < text.count, text[index].isWhitespace { index += 1 }
    }

    mutating func parseValue() throws(ConfigurationError) -> TOMLValue {
        skipWhitespace()
        guard index < text.count else { throw .syntax(line: line, "a value is missing after =") }
        switch text[index] {
        case "\"": return .string(try parseString())
        case "[": return try parseArray()
        default: return try parseBare()
        }
    }

    mutating func parseString() throws(ConfigurationError) -> String {
        index += 1
        var result = ""
        while index < text.count {
            let character = text[index]
            index += 1
            if character == "\"" { return result }
            if character == "\\" {
                guard index < text.count else { break }
                let escaped = text[index]
                index += 1
                switch escaped {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                default: throw .syntax(line: line, "unsupported escape \\\(escaped) in a string")
                }
            } else if let control = character.unicodeScalars.first(where: Self.isForbiddenControl) {
                let code = "U+" + String(repeating: "0", count: 4 - String(control.value, radix: 16).count)
                    + String(control.value, radix: 16, uppercase: true)
                throw ConfigurationError(line: line, key: key, message: "a string holds the control character \(code), which "
                    + "TOML does not allow in a string; remove it (a tab is allowed, and \\n or \\t write a line break or a tab)")
            } else {
                result.append(character)
            }
        }
        throw .syntax(line: line, "a string is not closed with \"")
    }

    /// The characters TOML forbids in a basic string as they are: U+0000 to U+001F but the tab,
    /// and DEL (U+007F).
    static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09) || scalar.value == 0x7F
    }

    mutating func parseArray() throws(ConfigurationError) -> TOMLValue {
        index += 1
        var items: [TOMLValue] = []
        while true {
            skipWhitespace()
            guard index < text.count else { throw .syntax(line: line, "an array is not closed with ]") }
            if text[index] == "]" {
                index += 1
                return .array(items)
            }
            items.append(try parseValue())
            skipWhitespace()
            guard index < text.count else { throw .syntax(line: line, "an array is not closed with ]") }
            if text[index] == "," {
                index += 1
            } else if text[index] != "]" {
                throw .syntax(line: line, "array items are separated by commas")
            }
        }
    }

    mutating func parseBare() throws(ConfigurationError) -> TOMLValue {
        var word = ""
        while index < text.count, text[index] != ",", text[index] != "]", !text[index].isWhitespace {
            word.append(text[index])
            index += 1
        }
        if word == "true" { return .boolean(true) }
        if word == "false" { return .boolean(false) }
        let digits = word.removingUnderscores()
        if let integer = Int(digits) { return .integer(integer) }
        if let float = Double(digits), float.isFinite { return .float(float) }
        throw .syntax(line: line, "\(word) is not a value (strings need \"quotes\")")
    }
}

extension TOMLTable {
    mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        values[key] = value
        keyLines[key] = line
        keyOrder.append(key)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view = view.dropFirst() }
        while let last = view.last, last.isWhitespace { view = view.dropLast() }
        return String(view)
    }

    func removingUnderscores() -> String {
        String(filter { $0 != "_" })
    }
}
