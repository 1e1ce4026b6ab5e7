import Foundation

/// Number formats shared by the human renderers (text and HTML); CSV and JSON keep raw values.
/// Money is rounded here and only here: to cents, or to whole dollars from $1,000 on.
enum Formatting {
    static let missing = "-"

    /// A payback that the projection does not reach within its horizon: `> D365` for the basis
    /// `beyond D365`; nil for any other basis.
    static func paybackBeyond(_ basis: String?) -> String? {
        guard let basis, basis.hasPrefix("beyond D") else { return nil }
        return "> " + basis.dropFirst("beyond ".count)
    }

    static func money(_ value: Decimal?) -> String {
        guard let value else { return missing }
        return rounded(value, places: 2).magnitude >= 1000
            ? "$" + grouped(fixed(value, places: 0)) : "$" + fixed(value, places: 2)
    }

    /// A money value that exists only as a double (a chart's axis), formatted as `money` does.
    static func money(_ value: Double?) -> String {
        guard let value else { return missing }
        return money(Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")))
    }

    /// A money value as a double, to place a mark on a chart (never to show or sum).
    static func plotted(_ value: Decimal) -> Double {
        Double(value.description) ?? 0
    }

    /// `value` rounded half away from zero to `places` decimals.
    static func rounded(_ value: Decimal, places: Int) -> Decimal {
        var exact = value, result = Decimal()
        NSDecimalRound(&result, &exact, places, .plain)
        return result.isZero ? 0 : result
    }

    /// `value` rounded half away from zero to `places` decimals, written with exactly that many.
    static func fixed(_ value: Decimal, places: Int) -> String {
        let parts = rounded(value, places: places).description.split(separator: ".", maxSplits: 1)
        guard places > 0 else { return String(parts[0]) }
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        return parts[0] + "." + fraction + String(repeating: "0", count: max(0, places - fraction.count))
    }

    /// Digits (with an optional sign and fraction) with thousands separators in the integer part.
    static func grouped(_ number: String) -> String {
        let negative = number.hasPrefix("-")
        let unsigned = negative ? number.dropFirst() : Substring(number)
        let parts = unsigned.split(separator: ".", maxSplits: 1)
        let digits = parts.first.map(String.init) ?? ""
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        if parts.count > 1 { out += "." + parts[1] }
        return (negative ? "-" : "") + out
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return missing }
        return String(format: "%.1f%%", value * 100)
    }

    static func ratio(_ value: Double?, digits: Int = 2) -> String {
        guard let value else { return missing }
        return String(format: "%.\(digits)f", value)
    }

    static func grouped(_ value: Int) -> String {
        grouped(String(value))
    }

    static func duration(_ seconds: Double?) -> String {
        guard let seconds else { return missing }
        switch seconds {
        case ..<120: return String(format: "%.0f s", seconds)
        case ..<7200: return String(format: "%.0f min", seconds / 60)
        case ..<172_800: return String(format: "%.1f h", seconds / 3600)
        default: return String(format: "%.1f d", seconds / 86_400)
        }
    }

    /// A count of users estimated as a fraction (users lost), as a whole number of users: the
    /// text, HTML and CSV all round it this way (half away from zero).
    static func wholeUsers(_ value: Double?) -> String {
        guard let value, value.isFinite else { return missing }
        return grouped(Int(value.rounded()))
    }

    static func pValue(_ value: Double?) -> String {
        guard let value else { return missing }
        return value < 0.001 ? "<0.001" : String(format: "%.3f", value)
    }
}
