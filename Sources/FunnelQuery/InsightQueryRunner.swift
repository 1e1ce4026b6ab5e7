public import FunnelCore
import FunnelSQL
public import PostgresClient

/// One line of an insight: a series (and breakdown value, and period when compared), its value
/// per point (interval, or N for stickiness) and its value over the whole range.
public struct InsightLine: Sendable, Equatable {
    /// The series as written (`purchase where revenue > 5`), with its math.
    public var label: String
    /// The breakdown value: nil without a breakdown, "" for events without one (shown
    /// `(none)`), ``InsightLine/other`` for the values past the limit.
    public var breakdown: String?
    /// `current` or `previous` when compared with the previous period, else nil.
    public var compare: String?
    /// The points' names: interval starts (`2024-05-01`, `2024-05-01 13:00`) or N.
    public var points: [String]
    public var values: [Double?]
    /// Over the whole range (distinct users over it, for unique users); nil where it has no meaning.
    public var total: Double?

    public static let other = "$other"
}

/// An insight's answer: the app, the range counted and the lines.
public struct InsightResult: Sendable {
    public let app: String
    public let title: String
    public let fromDay: Int
    public let toDay: Int
    public let lines: [InsightLine]
}

/// One edge of a paths answer: from `source` at path step `step` to `target` at the next step.
public struct PathEdge: Sendable, Equatable {
    public var step: Int
    public var source: String
    public var target: String
    public var paths: Int
}

/// A paths answer: the edges, most paths first.
public struct PathsResult: Sendable {
    public let app: String
    public let title: String
    public let fromDay: Int
    public let toDay: Int
    public let edges: [PathEdge]
    /// Paths counted (each run of events that reached a second event).
    public let paths: Int
}

/// Answers trends, stickiness, lifecycle and paths from the loaded events, with PostHog's
/// semantics: each reads its events through the funnel query's statement
/// (sql/query/funnel_events.sql, a matcher per series) and runner, user by user, in time order.
public struct InsightQueryRunner {
    let connection: PostgresConnection
    let warn: (String) -> Void

    public init(connection: PostgresConnection, warn: @escaping (String) -> Void = { _ in }) {
        self.connection = connection
        self.warn = warn
    }

    static let dayMicros: Int64 = 86_400_000_000
    /// More than any time zone's distance from UTC: read bounds are widened by it.
    static let zoneMarginMicros: Int64 = 15 * 3_600_000_000

    /// The app, and the range with its defaults filled: through the app's last date with data,
    /// from 6 days before the end (7 days).
    /// The app's last date with data in `timeZone` (days since 1970), the default end of a range;
    /// nil for an app without events.
    public func lastDay(app: String, timeZone: String) throws -> Int? {
        try connection.query(SQLCatalog.text("query/retention_data_end.sql"), [app]).scalar(Int64?.self)
            .map { InsightCalendar(interval: .day, timeZone: timeZone).day(ofMicros: $0) }
    }

    func resolve(_ range: InsightRange, timeZone: String) throws -> (app: String, fromDay: Int, toDay: Int) {
        let app = try FunnelQueryRunner(connection: connection).app(of: range.app)
        let calendar = InsightCalendar(interval: .day, timeZone: timeZone)
        var toDay = range.toDay
        if toDay == nil {
            let last = try connection.query(SQLCatalog.text("query/retention_data_end.sql"), [app]).scalar(Int64?.self)
            guard let last else { throw FunnelQueryError("app \(app) has no events yet: load files with funnel ingest first") }
            toDay = calendar.day(ofMicros: last)
        }
        let fromDay = range.fromDay ?? toDay! - 6
        guard fromDay <= toDay! else {
            throw FunnelQueryError("--from \(RetentionCalendar.text(ofDay: fromDay)) is after --to \(RetentionCalendar.text(ofDay: toDay!))")
        }
        return (app, fromDay, toDay!)
    }

    /// Warns of unknown event names and refuses filters and breakdowns that cannot apply, as the
    /// funnel query does.
    func check(_ matchers: [EventMatcher], breakdown: FunnelBreakdown?, app: String, defaulted: Bool) throws {
        try FunnelQueryRunner(connection: connection, warn: warn)
            .check(EventFunnelSpec(steps: matchers, breakdown: breakdown), app: app, defaulted: defaulted)
    }

    /// Reads each user's events of `matchers` (every event of the user, with `allEvents`) from
    /// `fromMicros` (nil: the whole history) to `endMicros` (exclusive), each event's steps the
    /// matchers (1-based) it satisfies.
    func read(_ matchers: [EventMatcher], app: String, fromMicros: Int64?, endMicros: Int64, allEvents: Bool = false,
              firstTime: Bool = false, breakdown: FunnelBreakdown? = nil, column: InsightColumn? = nil,
              _ body: (_ user: String, _ events: [FunnelEventRow]) throws -> Void) throws -> Int {
        let spec = EventFunnelSpec(steps: matchers, order: allEvents ? .strict : .ordered, windowMicros: 1,
                                   stepMath: firstTime ? .firstTime : .total, breakdown: breakdown)
        let scope = FunnelQueryScope(app: app, fromMicros: fromMicros, toMicros: endMicros - 1)
        let statement = FunnelQueryStatement(spec: spec, app: app, scope: scope, insight: column)
        return try FunnelQueryRunner(connection: connection).stream(statement) { _, user, events, _ in try body(user, events) }
    }
}
