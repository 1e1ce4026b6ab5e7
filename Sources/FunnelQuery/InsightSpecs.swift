public import FunnelCore

/// What an insight covers besides its definition: the app and the range of local dates
/// (inclusive) in the insight's time zone, `toDay` through its end (a date-only end is the end
/// of that day, hours included).
public struct InsightRange: Sendable, Equatable {
    public var app: String?
    public var fromDay: Int?
    public var toDay: Int?

    public init(app: String? = nil, fromDay: Int? = nil, toDay: Int? = nil) {
        self.app = app
        self.fromDay = fromDay
        self.toDay = toDay
    }
}

/// A trends insight, as PostHog's: series counted per interval of the range, optionally broken
/// down by a property, compared with the previous period and combined by a formula.
/// docs/insights.md gives each rule with an example.
public struct TrendsSpec: Sendable, Equatable {
    public var series: [TrendSeries]
    public var interval: InsightInterval
    public var weekStart: WeekStart
    public var timeZone: String
    /// Each event's own value (event), or the user's current properties (person).
    public var breakdown: FunnelBreakdown?
    /// Breakdown values shown (by events, most first); the rest form one `other` line.
    public var breakdownLimit: Int
    public var compare: Bool
    /// Across series, by letter: `A/B`, `(A + B) * 100`.
    public var formula: String?
    /// Running totals (distinct users so far, for unique users).
    public var cumulative: Bool

    public init(series: [TrendSeries], interval: InsightInterval = .day, weekStart: WeekStart = .sunday,
                timeZone: String = "UTC", breakdown: FunnelBreakdown? = nil, breakdownLimit: Int = 25,
                compare: Bool = false, formula: String? = nil, cumulative: Bool = false) {
        self.series = series
        self.interval = interval
        self.weekStart = weekStart
        self.timeZone = timeZone
        self.breakdown = breakdown
        self.breakdownLimit = breakdownLimit
        self.compare = compare
        self.formula = formula
        self.cumulative = cumulative
    }

    /// Why the definition cannot run, naming the flag, or nil.
    public func problem() -> String? {
        if series.isEmpty { return "trends need at least one --series" }
        if series.count > 26 { return "trends take at most 26 series (A to Z), got \(series.count)" }
        if breakdownLimit < 1 { return "--breakdown-limit must be at least 1" }
        for (index, item) in series.enumerated() where item.math == .weeklyActive || item.math == .monthlyActive {
            if interval != .day {
                return "series \(index + 1): \(item.math.text) counts each day's last 7 or 30 days; use --interval day"
            }
        }
        if let formula, let problem = TrendFormula.problem(formula, series: series.count) { return "--formula \(formula): \(problem)" }
        return nil
    }
}

/// A stickiness insight: per series, for each N, the users who did the event on exactly N
/// intervals of the range (or at least N, cumulative).
public struct StickinessSpec: Sendable, Equatable {
    public var series: [EventMatcher]
    public var interval: InsightInterval
    public var weekStart: WeekStart
    public var timeZone: String
    public var breakdown: FunnelBreakdown?
    public var cumulative: Bool

    public init(series: [EventMatcher], interval: InsightInterval = .day, weekStart: WeekStart = .sunday,
                timeZone: String = "UTC", breakdown: FunnelBreakdown? = nil, cumulative: Bool = false) {
        self.series = series
        self.interval = interval
        self.weekStart = weekStart
        self.timeZone = timeZone
        self.breakdown = breakdown
        self.cumulative = cumulative
    }
}

/// A lifecycle insight: per interval, the users of one event who are new, returning,
/// resurrecting or dormant (reported negative).
public struct LifecycleSpec: Sendable, Equatable {
    public var event: EventMatcher
    public var interval: InsightInterval
    public var weekStart: WeekStart
    public var timeZone: String

    public init(event: EventMatcher, interval: InsightInterval = .day, weekStart: WeekStart = .sunday, timeZone: String = "UTC") {
        self.event = event
        self.interval = interval
        self.weekStart = weekStart
        self.timeZone = timeZone
    }
}

/// A paths insight: the paths users take (each a run of events with no gap of 30 minutes or
/// more, repeats collapsed) after a start event or before an end event, as counted edges.
public struct PathsSpec: Sendable, Equatable {
    public var start: String?
    public var end: String?
    /// Events a path keeps (the start or end included).
    public var steps: Int
    /// Edges shown, most paths first.
    public var edgeLimit: Int
    /// Name patterns (`ux_*`): every name a pattern matches is shown as the pattern.
    public var groups: [String]
    public var timeZone: String
    /// A gap this long or longer starts a new path (microseconds).
    public var gapMicros: Int64

    public init(start: String? = nil, end: String? = nil, steps: Int = 5, edgeLimit: Int = 50, groups: [String] = [],
                timeZone: String = "UTC", gapMicros: Int64 = 30 * 60_000_000) {
        self.start = start
        self.end = end
        self.steps = steps
        self.edgeLimit = edgeLimit
        self.groups = groups
        self.timeZone = timeZone
        self.gapMicros = gapMicros
    }

    /// Why the definition cannot run, naming the flag, or nil.
    public func problem() -> String? {
        if start != nil && end != nil { return "--start and --end exclude each other; give one (or neither)" }
        if steps < 2 || steps > 20 { return "--steps must be from 2 to 20, got \(steps)" }
        if edgeLimit < 1 { return "--edge-limit must be at least 1" }
        return nil
    }
}
