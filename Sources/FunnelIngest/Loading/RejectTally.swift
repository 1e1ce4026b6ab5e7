/// The rejected rows of one file counted by cause: the reason with the values left out, so that
/// `installed_at: "2024-05-01 10:00:00" has no time zone` and the same for another time count
/// as one cause. Decides whether a file is refused for its rows (``FileRefusal/mostRowsRejected``).
struct RejectTally: Sendable, Equatable {
    /// One cause: how many rows it rejected, and the first of them (line and full reason).
    struct Cause: Sendable, Equatable {
        var rows: Int
        var firstLine: Int64
        var firstReason: String
    }

    private(set) var causes: [String: Cause] = [:]
    private(set) var rows = 0

    mutating func add(_ reject: RejectedRow) {
        rows += 1
        let cause = Self.cause(of: reject.reason)
        if causes[cause] != nil {
            causes[cause]!.rows += 1
        } else {
            causes[cause] = Cause(rows: 1, firstLine: reject.line, firstReason: reject.reason)
        }
    }

    /// The cause of the most rows (the first seen among equals).
    var top: (cause: String, detail: Cause)? {
        causes.max { a, b in a.value.rows != b.value.rows ? a.value.rows < b.value.rows : a.value.firstLine > b.value.firstLine }
            .map { ($0.key, $0.value) }
    }

    /// A reason with its values and its advice left out: `"v"` becomes `"…"`, a run of digits
    /// `N`, and a parenthesised remark (the reason's advice, the same for every row) is dropped.
    static func cause(of reason: String) -> String {
        var out = ""
        var inQuote = false
        var depth = 0
        var lastWasDigit = false
        for character in reason {
            if inQuote {
                if character == "\"" {
                    inQuote = false
                    out += "…\""
                }
                continue
            }
            if character == "(" { depth += 1 }
            if depth > 0 {
                if character == ")" { depth -= 1 }
                continue
            }
            if character == "\"" {
                inQuote = true
                out.append(character)
                lastWasDigit = false
                continue
            }
            if character.isASCII, character.isNumber {
                if !lastWasDigit { out.append("N") }
                lastWasDigit = true
                continue
            }
            lastWasDigit = false
            out.append(character)
        }
        if inQuote { out += "…\"" }
        var trimmed = Substring(out)
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// What to do about a cause, when funnel knows: the option or setting that fixes it.
    static func fix(for cause: String) -> String? {
        if cause.contains("has no time zone") {
            return "the timestamps have no zone: pass --assume-tz ZONE, or set assume_tz in [ingest] (or per app in "
                + "[[ingest.apps]], per file name in [[ingest.files]]) of funnel.toml, then load the file again"
        }
        if cause.contains("looks like Unix epoch seconds") {
            return "the timestamps are epoch seconds: export them in milliseconds or RFC 3339, then load the file again"
        }
        if cause.contains("is more than 2 days in the future") {
            return "the timestamps lie in the future: check the export's time zone and clock"
        }
        if cause.hasPrefix("missing required field") {
            return "a required value is empty in most rows: check the export's columns against `funnel inputs KIND`"
        }
        return nil
    }
}
