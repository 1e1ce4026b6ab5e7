import Foundation

/// Number formats shared by the human renderers (text and HTML); CSV and JSON keep raw values.
enum Formatting {
    static let missing = "-"

    static func money(_ value: Double?) -> String {
        guard let value else { return missing }
        return value.magnitude >= 1000 ? "$" + grouped(Int(value.rounded())) : String(format: "$%.2f", value)
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
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
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

    static func pValue(_ value: Double?) -> String {
        guard let value else { return missing }
        return value < 0.001 ? "<0.001" : String(format: "%.3f", value)
    }
}
