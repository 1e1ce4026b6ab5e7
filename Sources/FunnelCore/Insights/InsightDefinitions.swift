/// The parts of an insight's definition that the configuration (`[[trends]]`, `[[lifecycle]]`
/// in funnel.toml) holds as well as `funnel query`: the interval, the week start, and what a
/// trends series counts. The insights themselves are evaluated in FunnelQuery.

/// The interval an insight counts by.
public enum InsightInterval: String, Sendable, Equatable, CaseIterable {
    case hour, day, week, month
}

/// The day weeks start on (PostHog's team setting; Sunday by default).
public enum WeekStart: String, Sendable, Equatable, CaseIterable {
    case sunday, monday
}

/// A statistic over values: of per-user counts, or of a numeric property.
public enum InsightAggregate: String, Sendable, Equatable, CaseIterable {
    case sum, avg, min, max, median, p75, p90, p95, p99

    /// The statistic of `values` (nil for none). Percentiles and the median interpolate
    /// linearly between the two nearest ranks.
    public func of(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        switch self {
        case .sum: return values.reduce(0, +)
        case .avg: return values.reduce(0, +) / Double(values.count)
        case .min: return values.min()
        case .max: return values.max()
        case .median: return Self.quantile(values, 0.5)
        case .p75: return Self.quantile(values, 0.75)
        case .p90: return Self.quantile(values, 0.9)
        case .p95: return Self.quantile(values, 0.95)
        case .p99: return Self.quantile(values, 0.99)
        }
    }

    static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        let low = Int(position.rounded(.down))
        let high = Swift.min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }
}

/// What a trends series counts per interval (PostHog's math).
public enum TrendMath: Sendable, Equatable {
    /// Events.
    case total
    /// Distinct users with an event in the interval.
    case uniqueUsers
    /// Distinct users with an event in the 7 (30) days ending with the interval's day.
    case weeklyActive, monthlyActive
    /// Users whose first ever event of the series' name is in the interval and passes the filters.
    case firstTimeForUser
    /// A statistic of the users' event counts in the interval (users with none left out).
    case perUser(InsightAggregate)
    /// A statistic of a numeric property over the interval's events (events without a number
    /// left out).
    case property(InsightAggregate, String)

    /// `total`, `dau`, `weekly_active`, `monthly_active`, `first_time_for_user`,
    /// `<avg|min|max|median|p75|p90|p95|p99>_count_per_user`, `<sum|avg|...>(property)`.
    public init?(text: String) {
        switch text {
        case "total": self = .total
        case "dau", "unique_users": self = .uniqueUsers
        case "weekly_active": self = .weeklyActive
        case "monthly_active": self = .monthlyActive
        case "first_time_for_user": self = .firstTimeForUser
        default:
            if text.hasSuffix("_count_per_user"), let aggregate = InsightAggregate(rawValue: String(text.dropLast(15))),
               aggregate != .sum {
                self = .perUser(aggregate)
            } else if let open = text.firstIndex(of: "("), text.hasSuffix(")"),
                      let aggregate = InsightAggregate(rawValue: String(text[..<open])) {
                let property = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
                guard !property.isEmpty else { return nil }
                self = .property(aggregate, property)
            } else {
                return nil
            }
        }
    }

    public var text: String {
        switch self {
        case .total: "total"
        case .uniqueUsers: "dau"
        case .weeklyActive: "weekly_active"
        case .monthlyActive: "monthly_active"
        case .firstTimeForUser: "first_time_for_user"
        case .perUser(let aggregate): "\(aggregate.rawValue)_count_per_user"
        case .property(let aggregate, let property): "\(aggregate.rawValue)(\(property))"
        }
    }
}

/// One trends series: the events it counts and how.
public struct TrendSeries: Sendable, Equatable {
    public var matcher: EventMatcher
    public var math: TrendMath

    public init(matcher: EventMatcher, math: TrendMath = .total) {
        self.matcher = matcher
        self.math = math
    }
}
