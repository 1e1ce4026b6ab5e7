import Foundation
public import FunnelCore

extension RetentionSpec {
    /// The definition in one line: start, return, cohorts, periods, occurrences, breakdown.
    public var summary: String {
        var parts = [cohortType == .firstTime ? "first time" : "recurring"]
        switch period {
        case .day: parts.append(dayRule == .hours24 ? "by 24-hour periods" : "by calendar day")
        case .week: parts.append("by week (from Sunday)")
        case .month: parts.append("by month")
        }
        if let cohortPeriod, cohortPeriod != period {
            parts.append("cohorts by \(cohortPeriod.rawValue)\(cohortPeriod == .week ? " (from Sunday)" : ""), days from each member's start")
        }
        parts.append("time zone \(timeZone)")
        if minOccurrences > 1 { parts.append("at least \(minOccurrences) return events a period") }
        if let breakdown {
            parts.append("by \(breakdown.source == .person ? "person" : "start event") property \(breakdown.property)")
        }
        return start.label + " -> " + returning.label + " (" + parts.joined(separator: "; ") + ")"
    }
}

extension RetentionQueryResult {
    var periodName: String {
        switch table.spec.period {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        }
    }

    /// The text report: per breakdown value, the summary (classic and rolling per period, pooled
    /// over the mature cohorts), the brackets and the triangle of classic retention.
    public func text() -> String {
        let spec = table.spec
        var lines = ["retention on app \(app): " + spec.summary,
                     "as of \(RetentionCalendar.text(ofDay: asOfDay)) (data through "
                        + (dataEndDay.map(RetentionCalendar.text(ofDay:)) ?? "-") + "); immature cells are blank"]
        if table.series.isEmpty { lines.append("no user did the start event (\(spec.start.label)) in the cohort range") }
        for series in table.series {
            if let breakdown = spec.breakdown { lines.append("\n\(breakdown.property) = \(series.value ?? "(none)")") }
            lines.append("\(series.users) users in \(series.cohorts.count) cohorts")
            lines.append(periodName.padding(toLength: 7, withPad: " ", startingAt: 0) + "  cohorts      users   returned   classic   rolling")
            // Periods no cohort is mature for yet are one line, not rows of zeros.
            let counted = (0...spec.periods).filter { series.classic[$0].cohorts > 0 }
            for period in counted {
                let classic = series.classic[period]
                let rolling = series.rolling[period]
                lines.append(String(period).padding(toLength: 7, withPad: " ", startingAt: 0) + Self.left(String(classic.cohorts), 9)
                    + Self.left(String(classic.size), 11) + Self.left(String(classic.retained), 11)
                    + Self.left(Self.percent(classic.rate), 10) + Self.left(Self.percent(rolling.rate), 10))
            }
            let pending = (0...spec.periods).filter { series.classic[$0].cohorts == 0 }
            if let first = pending.first {
                lines.append("\(periodName) \(first)\(pending.count > 1 ? "-\(pending.last!)" : ""): no cohort is mature yet")
            }
            for (index, bracket) in spec.brackets.enumerated() {
                let pooled = series.brackets[index]
                lines.append("bracket \(bracket.lowerBound)-\(bracket.upperBound): \(Self.percent(pooled.rate)) "
                    + "(\(pooled.retained) of \(pooled.size) users, \(pooled.cohorts) mature cohorts)")
            }
            // The triangle in blocks of periods that fit 100 columns, each with the cohort columns.
            let block = (Self.width - 22) / 8
            for first in stride(from: 0, through: spec.periods, by: block) {
                let periods = first...min(first + block - 1, spec.periods)
                lines.append("")
                lines.append("cohort            users" + periods.map { Self.left("\(periodName.prefix(1))\($0)", 8) }.joined())
                for cohort in series.cohorts {
                    var line = RetentionCalendar.text(ofDay: cohort.firstDay).padding(toLength: 12, withPad: " ", startingAt: 0)
                    line += Self.left(String(cohort.size), 10)
                    for value in cohort.classic[periods] {
                        line += Self.left(value.map { cohort.size > 0 ? Self.percent(Double($0) / Double(cohort.size)) : "-" } ?? "", 8)
                    }
                    lines.append(line)
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The text report's widest line.
    static let width = 100

    static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "-" }
        return String(format: "%.1f%%", value * 100)
    }

    /// One CSV row per (breakdown value, cohort, period) of the triangle, then the pooled rows
    /// (cohort `all`) per period and per bracket (period `first-last`). Immature cells are empty.
    public func csv() -> String {
        var out = "breakdown,cohort,period,cohort_size,retained,rate,rolling_retained,rolling_rate\n"
        func rate(_ count: Int?, _ size: Int) -> String {
            guard let count, size > 0 else { return "" }
            return String(Double(count) / Double(size))
        }
        for series in table.series {
            let value = Self.csvField(series.value ?? "")
            for cohort in series.cohorts {
                let date = RetentionCalendar.text(ofDay: cohort.firstDay)
                for period in cohort.classic.indices {
                    out += [value, date, String(period), String(cohort.size), cohort.classic[period].map(String.init) ?? "",
                            rate(cohort.classic[period], cohort.size), cohort.rolling[period].map(String.init) ?? "",
                            rate(cohort.rolling[period], cohort.size)].joined(separator: ",") + "\n"
                }
            }
            for period in series.classic.indices {
                let classic = series.classic[period]
                let rolling = series.rolling[period]
                out += [value, "all", String(period), String(classic.size), String(classic.retained),
                        classic.rate.map { String($0) } ?? "", String(rolling.retained),
                        rolling.rate.map { String($0) } ?? ""].joined(separator: ",") + "\n"
            }
            for (index, bracket) in table.spec.brackets.enumerated() {
                let pooled = series.brackets[index]
                out += [value, "all", "\(bracket.lowerBound)-\(bracket.upperBound)", String(pooled.size), String(pooled.retained),
                        pooled.rate.map { String($0) } ?? "", "", ""].joined(separator: ",") + "\n"
            }
        }
        return out
    }

    static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// The JSON document: the definition, the dates, and per breakdown value the triangle
    /// (immature cells null), the pooled summary and the brackets.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(RetentionJSON(self)), as: UTF8.self) + "\n"
    }
}

/// The `--format json` shape of a retention query.
private struct RetentionJSON: Encodable {
    struct Definition: Encodable {
        var start: String
        var `return`: String
        var cohorts: String
        var period: String
        var dayRule: String
        var periods: Int
        var minOccurrences: Int
        var timeZone: String
        var breakdown: String?
    }

    struct Cohort: Encodable {
        var cohort: String
        var size: Int
        var retained: [Int?]
        var rolling: [Int?]
        var brackets: [String: Int?]
    }

    struct Pooled: Encodable {
        var period: String
        var cohorts: Int
        var cohortSize: Int
        var retained: Int
        var rate: Double?
    }

    struct Series: Encodable {
        var breakdown: String?
        var cohorts: [Cohort]
        var classic: [Pooled]
        var rolling: [Pooled]
        var brackets: [Pooled]
    }

    var app: String
    var retention: Definition
    var asOf: String
    var dataThrough: String?
    var series: [Series]
    var eventsRead: Int

    init(_ result: RetentionQueryResult) {
        let spec = result.table.spec
        app = result.app
        retention = Definition(start: spec.start.label, return: spec.returning.label, cohorts: spec.cohortType.rawValue,
                               period: spec.period.rawValue, dayRule: spec.dayRule.rawValue, periods: spec.periods,
                               minOccurrences: spec.minOccurrences, timeZone: spec.timeZone,
                               breakdown: spec.breakdown.map { "\($0.source.rawValue).\($0.property)" })
        asOf = RetentionCalendar.text(ofDay: result.asOfDay)
        dataThrough = result.dataEndDay.map(RetentionCalendar.text(ofDay:))
        let names = spec.brackets.map { "\($0.lowerBound)-\($0.upperBound)" }
        func pooled(_ values: [RetentionTable.Pooled], _ labels: [String]) -> [Pooled] {
            zip(values, labels).map { Pooled(period: $1, cohorts: $0.cohorts, cohortSize: $0.size, retained: $0.retained, rate: $0.rate) }
        }
        series = result.table.series.map { item in
            let periods = (0...spec.periods).map(String.init)
            return Series(breakdown: item.value, cohorts: item.cohorts.map { cohort in
                Cohort(cohort: RetentionCalendar.text(ofDay: cohort.firstDay), size: cohort.size, retained: cohort.classic,
                       rolling: cohort.rolling, brackets: Dictionary(uniqueKeysWithValues: zip(names, cohort.brackets)))
            }, classic: pooled(item.classic, periods), rolling: pooled(item.rolling, periods), brackets: pooled(item.brackets, names))
        }
        eventsRead = result.eventsRead
    }
}
