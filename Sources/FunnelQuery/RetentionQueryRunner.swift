public import FunnelCore
import FunnelSQL
public import PostgresClient

/// What a retention query covers besides its definition: the app, the cohort dates and the date
/// the data is complete through, all local dates (days since 1970) in the retention's time zone.
public struct RetentionQueryScope: Sendable, Equatable {
    public var app: String?
    /// Cohorts from this date on (inclusive); nil: from the first data.
    public var fromDay: Int?
    /// Cohorts up to this date (inclusive); nil: through the as-of date.
    public var toDay: Int?
    /// The data is complete through this date; nil: the app's last date with data.
    public var asOfDay: Int?

    public init(app: String? = nil, fromDay: Int? = nil, toDay: Int? = nil, asOfDay: Int? = nil) {
        self.app = app
        self.fromDay = fromDay
        self.toDay = toDay
        self.asOfDay = asOfDay
    }
}

/// A retention query's answer: the table, and the dates it was counted with.
public struct RetentionQueryResult: Sendable {
    public let app: String
    public let table: RetentionTable
    public let scope: RetentionQueryScope
    /// The as-of date used and the app's last date with data (local days since 1970).
    public let asOfDay: Int
    public let dataEndDay: Int?
    /// Events read from the database.
    public let eventsRead: Int
}

/// Answers a retention definition (``RetentionSpec``) from the loaded events: reads the start
/// and return events, tagged in SQL with the matchers they satisfy (the funnel query's statement,
/// sql/query/funnel_events.sql, with the start as step 1 and the return as step 2), user by user
/// through a cursor, evaluates each user (``RetentionEvaluator``) and counts the table
/// (``RetentionTable/Builder``).
public struct RetentionQueryRunner {
    let connection: PostgresConnection
    /// Told each warning (an event name the app has no event of), for the caller to show.
    let warn: (String) -> Void

    public init(connection: PostgresConnection, warn: @escaping (String) -> Void = { _ in }) {
        self.connection = connection
        self.warn = warn
    }

    static let dayMicros: Int64 = 86_400_000_000
    /// More than any time zone's distance from UTC: read bounds are widened by it, and the
    /// evaluator keeps only the local dates it needs.
    static let zoneMarginMicros: Int64 = 15 * 3_600_000_000

    /// Runs `spec` over `scope`.
    /// - Throws: ``FunnelQueryError`` for a definition that cannot run (naming the flag, event or
    ///   property), or a ``PostgresError``.
    public func run(_ spec: RetentionSpec, scope: RetentionQueryScope) throws -> RetentionQueryResult {
        if let problem = spec.problem() { throw FunnelQueryError(problem) }
        let app = try FunnelQueryRunner(connection: connection).app(of: scope.app)
        try check(spec, app: app, defaulted: scope.app == nil)
        let calendar = RetentionCalendar(period: .day, timeZone: spec.timeZone)
        let lastMicros = try connection.query(SQLCatalog.text("query/retention_data_end.sql"), [app]).scalar(Int64?.self)
        let dataEndDay = lastMicros.map(calendar.day(ofMicros:))
        guard let asOfDay = scope.asOfDay ?? dataEndDay else {
            throw FunnelQueryError("app \(app) has no events yet: nothing to count retention from")
        }
        if let from = scope.fromDay, let to = scope.toDay, from > to {
            throw FunnelQueryError("--from \(RetentionCalendar.text(ofDay: from)) is after --to \(RetentionCalendar.text(ofDay: to))")
        }
        let evaluator = RetentionEvaluator(spec: spec, fromDay: scope.fromDay, toDay: scope.toDay, asOfDay: asOfDay)
        // First-time cohorts need each user's whole history (their first start event may precede
        // the range); recurring ones only the range on.
        let earliest = spec.cohortType == .recurring ? scope.fromDay.map { Int64($0) * Self.dayMicros - Self.zoneMarginMicros } : nil
        let end = Int64(asOfDay + 1) * Self.dayMicros + Self.zoneMarginMicros
        let statement = Self.statement(spec, app: app, from: earliest, end: end, computeScope: false)
        var builder = RetentionTable.Builder(spec: spec, asOfDay: asOfDay, fromDay: scope.fromDay, toDay: scope.toDay ?? (scope.fromDay == nil ? nil : asOfDay))
        let read = try stream(statement) { _, _, events in
            for result in evaluator.evaluate(events) { builder.add(result) }
        }
        return RetentionQueryResult(app: app, table: builder.table(), scope: scope, asOfDay: asOfDay,
                                    dataEndDay: dataEndDay, eventsRead: read)
    }

    /// Evaluates `spec` for the users of the install cohorts a compute is working on (its
    /// `scope_installs` table), over all their history, handing each user's cohorts to `body`:
    /// the same evaluation as ``run(_:scope:)`` without a cohort range or an as-of date (the
    /// marts apply maturity when they are counted).
    public func evaluateComputeScope(_ spec: RetentionSpec,
                                     _ body: (_ app: String, _ user: String, RetentionUserResult) throws -> Void) throws {
        let evaluator = RetentionEvaluator(spec: spec, fromDay: nil, toDay: nil, asOfDay: Int(Int32.max))
        let statement = Self.statement(spec, app: nil, from: nil, end: nil, computeScope: true)
        _ = try stream(statement) { app, user, events in
            for result in evaluator.evaluate(events) { try body(app, user, result) }
        }
    }

    /// The funnel statement for a two-step funnel, start then return, reading events from `from`
    /// up to `end` (microseconds; nil: unbounded).
    static func statement(_ spec: RetentionSpec, app: String?, from: Int64?, end: Int64?, computeScope: Bool) -> FunnelQueryStatement {
        let funnel = EventFunnelSpec(steps: [spec.start, spec.returning], order: .ordered, windowMicros: 1,
                                     breakdown: spec.breakdown)
        let scope = FunnelQueryScope(app: app, fromMicros: from, toMicros: end.map { $0 - 1 })
        return FunnelQueryStatement(spec: funnel, app: app, scope: scope, computeScope: computeScope)
    }

    /// Reads the statement's rows as the funnel query does (``FunnelQueryRunner``: unsorted, in
    /// binary, each user's events put in time order, ties in the statement's order) and hands each
    /// user's events to `body`, start (step 1) and return (step 2) marked. Returns the rows read.
    private func stream(_ statement: FunnelQueryStatement,
                        _ body: (_ app: String, _ user: String, [RetentionEventRow]) throws -> Void) throws -> Int {
        try FunnelQueryRunner(connection: connection).stream(statement) { app, user, events, _ in
            try body(app, user, events.map {
                RetentionEventRow(micros: $0.micros, isStart: $0.steps.contains(1), isReturn: $0.steps.contains(2),
                                  breakdown: $0.breakdown)
            })
        }
    }

    /// Warns of event names the app has no event of (they count nobody, as in PostHog); refuses
    /// filters or breakdowns on keys no event of the known names has, and regular expressions
    /// PostgreSQL cannot compile, each named by its flag.
    private func check(_ spec: RetentionSpec, app: String, defaulted: Bool) throws {
        let funnels = FunnelQueryRunner(connection: connection, warn: warn)
        var unknown: [String: Set<String>] = [:]
        for (flag, matcher) in [("--start", spec.start), ("--return", spec.returning)] {
            unknown[flag] = try funnels.warnUnknown(matcher.events, app: app, flag: "\(flag) \(matcher.label)", defaulted: defaulted)
            try funnels.checkFilters(of: matcher.known(excluding: unknown[flag]!), named: flag, app: app)
        }
        if let breakdown = spec.breakdown, breakdown.source == .event {
            let has = try connection.query(SQLCatalog.text("query/funnel_property_check.sql"),
                                           [app, spec.start.events, breakdown.property]).scalar(Bool.self)
            if !has && unknown["--start"]!.count < Set(spec.start.events).count {
                throw FunnelQueryError("--breakdown \(breakdown.property): no start event (\(spec.start.label)) has this property")
            }
        }
    }
}
