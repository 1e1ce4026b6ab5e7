import Foundation
import FunnelCore

extension FunnelQueryResult {
    /// The definition in one line: steps, order, window, exclusions, step math, breakdown.
    public var summary: String {
        var parts = ["\(spec.order.rawValue)", "window \(Self.duration(Double(spec.windowMicros) / 1_000_000))"]
        if let stepMaths {
            parts.append("step math " + stepMaths.enumerated().map { "\($0.offset + 1) \($0.element.rawValue)" }.joined(separator: ", "))
        } else {
            switch spec.stepMath {
            case .total: break
            case .firstTime: parts.append("first time for each user")
            case .firstTimeWithFilters: parts.append("first time for each user, with the filters")
            }
        }
        for exclusion in spec.exclusions {
            parts.append("excluding \(exclusion.matcher.label) between steps \(exclusion.fromStep) and \(exclusion.toStep)")
        }
        if let breakdown = spec.breakdown {
            parts.append("by \(breakdown.source == .person ? "person" : "event") property \(breakdown.property) (\(Self.attribution(breakdown.attribution)))")
        }
        return "funnel on app \(app): " + spec.steps.map(\.label).joined(separator: " -> ") + " (" + parts.joined(separator: "; ") + ")"
    }

    static func attribution(_ attribution: FunnelBreakdown.Attribution) -> String {
        switch attribution {
        case .firstTouch: "first touch"
        case .lastTouch: "last touch"
        case .allEvents: "all events"
        case .step(let step): "step \(step)"
        }
    }

    /// A duration for people: `45s`, `12m 5s`, `3h 20m`, `2d 4h`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total)s" }
        if total < 3_600 { return "\(total / 60)m" + (total % 60 > 0 ? " \(total % 60)s" : "") }
        if total < 86_400 { return "\(total / 3_600)h" + (total % 3_600 / 60 > 0 ? " \(total % 3_600 / 60)m" : "") }
        return "\(total / 86_400)d" + (total % 86_400 / 3_600 > 0 ? " \(total % 86_400 / 3_600)h" : "")
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "-" }
        return String(format: "%.1f%%", value * 100)
    }

    /// The text table: per breakdown value, each step's users, conversion, drop-off and time.
    public func text(timeToConvert: TimeToConvert? = nil) -> String {
        var lines = [summary]
        if series.isEmpty { lines.append("no user did step 1 (\(spec.steps[0].label)) in the date range") }
        for item in series {
            if spec.breakdown != nil { lines.append("\n\(spec.breakdown!.property) = \(item.value ?? "(none)")") }
            // Labels longer than the room 100 columns leave are cut (the summary has them whole).
            let width = min(Self.labelRoom, max(5, item.steps.map(\.label.count).max() ?? 0))
            lines.append("step  " + "event".padding(toLength: width, withPad: " ", startingAt: 0)
                + "     users  of first  of previous  dropped  median time  average time")
            for step in item.steps {
                var line = String(step.step).padding(toLength: 6, withPad: " ", startingAt: 0)
                let label = step.label.count > width ? step.label.prefix(width - 1) + "…" : step.label
                line += label.padding(toLength: width, withPad: " ", startingAt: 0)
                line += Self.left(String(step.users), 10) + Self.left(Self.percent(step.conversionFromFirst), 10)
                line += Self.left(Self.percent(step.conversionFromPrevious), 13) + Self.left(String(step.droppedOff), 9)
                line += Self.left(step.medianSecondsFromPrevious.map(Self.duration) ?? "-", 13)
                line += Self.left(step.averageSecondsFromPrevious.map(Self.duration) ?? "-", 14)
                lines.append(line)
            }
            if item.excluded > 0 { lines.append("excluded: \(item.excluded) users (an exclusion voided their furthest attempt)") }
        }
        if let timeToConvert {
            lines.append("\ntime to convert, step \(timeToConvert.fromStep) to \(timeToConvert.toStep): \(timeToConvert.users) users, "
                + "average \(timeToConvert.averageSeconds.map(Self.duration) ?? "-"), median \(timeToConvert.medianSeconds.map(Self.duration) ?? "-")")
            let most = timeToConvert.bins.map(\.users).max() ?? 0
            for bin in timeToConvert.bins {
                let bar = most > 0 ? String(repeating: "#", count: Int((Double(bin.users) / Double(most) * 40).rounded())) : ""
                lines.append("  " + Self.left(Self.duration(bin.fromSeconds), 8) + " - " + Self.duration(bin.toSeconds)
                    .padding(toLength: 8, withPad: " ", startingAt: 0) + Self.left(String(bin.users), 8) + " " + bar)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The step table's room for labels: 100 columns less the step number and the figures.
    static let labelRoom = 100 - 6 - 69

    private static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }

    /// One CSV row per (breakdown value, step); rates as fractions, times in seconds.
    public func csv() -> String {
        var out = "breakdown,step,event,users,conversion_from_first,conversion_from_previous,dropped_off,"
            + "median_seconds_from_previous,average_seconds_from_previous,excluded\n"
        for item in series {
            for step in item.steps {
                out += [Self.csvField(item.value ?? ""), String(step.step), Self.csvField(step.label), String(step.users),
                        Self.number(step.conversionFromFirst), Self.number(step.conversionFromPrevious),
                        String(step.droppedOff), Self.number(step.medianSecondsFromPrevious),
                        Self.number(step.averageSecondsFromPrevious), String(item.excluded)].joined(separator: ",") + "\n"
            }
        }
        return out
    }

    /// Each user's place in the funnel: the furthest step and whether they dropped off there.
    public func usersCSV() -> String {
        var out = "user_id,breakdown,furthest_step,converted,excluded\n"
        for row in users.sorted(by: { ($0.user, $0.result.breakdown ?? "") < ($1.user, $1.result.breakdown ?? "") }) {
            let step = row.result.furthestStep
            out += [Self.csvField(row.user), Self.csvField(row.result.breakdown ?? ""), String(step),
                    String(step == spec.steps.count), String(step == 0)].joined(separator: ",") + "\n"
        }
        return out
    }

    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// The JSON document: the definition, each breakdown value's steps, time to convert.
    public func json(timeToConvert: TimeToConvert? = nil) throws -> String {
        let document = FunnelJSON(self, timeToConvert: timeToConvert)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }
}

/// The `--format json` shape of a funnel query.
private struct FunnelJSON: Encodable {
    struct Definition: Encodable {
        var steps: [String]
        var order: String
        var windowSeconds: Double
        var exclusions: [String]
        var stepMath: String
        var breakdown: String?
        var attribution: String?
    }

    struct Step: Encodable {
        var step: Int
        var event: String
        var users: Int
        var conversionFromFirst: Double?
        var conversionFromPrevious: Double?
        var droppedOff: Int
        var medianSecondsFromPrevious: Double?
        var averageSecondsFromPrevious: Double?
    }

    struct Series: Encodable {
        var breakdown: String?
        var steps: [Step]
        var excluded: Int
    }

    struct Bin: Encodable {
        var fromSeconds: Double
        var toSeconds: Double
        var users: Int
    }

    struct Conversion: Encodable {
        var fromStep: Int
        var toStep: Int
        var users: Int
        var averageSeconds: Double?
        var medianSeconds: Double?
        var bins: [Bin]
    }

    var app: String
    var funnel: Definition
    var series: [Series]
    var timeToConvert: Conversion?
    var eventsRead: Int

    init(_ result: FunnelQueryResult, timeToConvert: TimeToConvert?) {
        app = result.app
        let spec = result.spec
        funnel = Definition(
            steps: spec.steps.map(\.label), order: spec.order.rawValue, windowSeconds: Double(spec.windowMicros) / 1_000_000,
            exclusions: spec.exclusions.map { "\($0.matcher.label) between \($0.fromStep) and \($0.toStep)" },
            stepMath: result.stepMaths.map { $0.map(\.rawValue).joined(separator: ",") } ?? spec.stepMath.rawValue,
            breakdown: spec.breakdown.map { "\($0.source.rawValue).\($0.property)" },
            attribution: spec.breakdown.map { FunnelQueryResult.attribution($0.attribution) })
        series = result.series.map { item in
            Series(breakdown: item.value, steps: item.steps.map {
                Step(step: $0.step, event: $0.label, users: $0.users, conversionFromFirst: $0.conversionFromFirst,
                     conversionFromPrevious: $0.conversionFromPrevious, droppedOff: $0.droppedOff,
                     medianSecondsFromPrevious: $0.medianSecondsFromPrevious,
                     averageSecondsFromPrevious: $0.averageSecondsFromPrevious)
            }, excluded: item.excluded)
        }
        self.timeToConvert = timeToConvert.map { conversion in
            Conversion(fromStep: conversion.fromStep, toStep: conversion.toStep, users: conversion.users,
                       averageSeconds: conversion.averageSeconds, medianSeconds: conversion.medianSeconds,
                       bins: conversion.bins.map { Bin(fromSeconds: $0.fromSeconds, toSeconds: $0.toSeconds, users: $0.users) })
        }
        eventsRead = result.eventsRead
    }
}
