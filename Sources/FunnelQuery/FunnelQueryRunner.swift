public import FunnelCore
import FunnelSQL
public import PostgresClient

/// What a funnel query covers besides its definition: the app and the time range of the first
/// step's events.
public struct FunnelQueryScope: Sendable, Equatable {
    public var app: String?
    /// First step's events from this instant (microseconds since 1970, UTC), inclusive.
    public var fromMicros: Int64?
    /// First step's events before this instant, exclusive.
    public var toMicros: Int64?

    public init(app: String? = nil, fromMicros: Int64? = nil, toMicros: Int64? = nil) {
        self.app = app
        self.fromMicros = fromMicros
        self.toMicros = toMicros
    }
}

/// A funnel query that cannot run, with what to change.
public struct FunnelQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Answers a funnel over the loaded events (``EventFunnelSpec``) straight from the database:
/// reads the events the steps and exclusions name, tagged in SQL with the matchers they satisfy,
/// through a cursor in binary format, groups them by user and evaluates each user
/// (``EventFunnelEvaluator``).
public struct FunnelQueryRunner {
    let connection: PostgresConnection
    /// Told each warning (an event name the app has no event of), for the caller to show.
    let warn: (String) -> Void

    public init(connection: PostgresConnection, warn: @escaping (String) -> Void = { _ in }) {
        self.connection = connection
        self.warn = warn
    }

    /// Rows fetched from the cursor at a time.
    static let fetchRows = 50_000

    /// Runs `spec` over `scope`.
    /// - Throws: ``FunnelQueryError`` for a definition that cannot run (naming the step, event or
    ///   property), or a ``PostgresError``.
    /// `stepMaths`, when given, is each step's math (PostHog sets it per step) in place of
    /// `spec.stepMath`.
    public func run(_ spec: EventFunnelSpec, scope: FunnelQueryScope, stepMaths: [StepMath]? = nil) throws -> FunnelQueryResult {
        if let problem = spec.problem() { throw FunnelQueryError(problem) }
        if let stepMaths, stepMaths.count != spec.steps.count {
            throw FunnelQueryError("--step-math: give one math for all steps or one per step (\(spec.steps.count))")
        }
        let app = try app(of: scope.app)
        try check(spec, app: app, defaulted: scope.app == nil)
        let statement = FunnelQueryStatement(spec: spec, app: app, scope: scope, stepMaths: stepMaths)
        var tally = FunnelTally(spec: spec)
        let evaluator = Self.evaluator(spec)
        tally.eventsRead = try stream(statement) { _, user, events in
            for result in Self.evaluate(events, spec: spec, scope: scope, evaluator: evaluator, stepMaths: stepMaths) {
                tally.add(user: user, result)
            }
        }
        var result = tally.result(app: app, scope: scope)
        result.stepMaths = stepMaths
        return result
    }

    /// Funnel trends: per interval (day, week or month, UTC) of the first step, the users who
    /// entered then and those of them who converted (reached the last step, within the window from
    /// that step 1, whenever it happened). As PostHog counts them, a user counts once in each
    /// interval with a step-1 event, with the best attempt started in it; an attempt an exclusion
    /// voids counts nowhere. Intervals without entries in the range are listed with 0.
    public func trends(_ spec: EventFunnelSpec, scope: FunnelQueryScope, interval: FunnelTrendInterval) throws -> [FunnelTrendPoint] {
        if let problem = spec.problem() { throw FunnelQueryError(problem) }
        guard spec.order != .unordered else { throw FunnelQueryError("funnel trends need an ordered or strict funnel (step 1 starts each entry)") }
        let app = try app(of: scope.app)
        try check(spec, app: app, defaulted: scope.app == nil)
        var plain = spec
        plain.breakdown = nil
        let statement = FunnelQueryStatement(spec: plain, app: app, scope: scope, trend: interval)
        let evaluator = Self.evaluator(plain)
        var points: [Int64: (entered: Int, converted: Int)] = [:]
        _ = try stream(statement) { _, _, events, starts in
            let entries = Set(events.indices.filter { events[$0].steps.contains(1) }.compactMap { starts[$0] })
            for entry in entries {
                var only = events
                for index in only.indices where only[index].steps.contains(1) && starts[index] != entry {
                    only[index].steps.removeAll { $0 == 1 }
                }
                for result in Self.evaluate(only, spec: plain, scope: scope, evaluator: evaluator) where result.furthestStep > 0 {
                    points[entry, default: (0, 0)].entered += 1
                    if result.furthestStep == plain.steps.count { points[entry, default: (0, 0)].converted += 1 }
                }
            }
        }
        return FunnelTrendPoint.filled(points, interval: interval, scope: scope)
    }

    /// Evaluates `spec` for the users of the install cohorts a compute is working on (its
    /// `scope_installs` table), over all their history, handing each user's result to `body`
    /// (users who never did step 1 are not handed). The same evaluation as ``run(_:scope:)``.
    public func evaluateComputeScope(_ spec: EventFunnelSpec, stepMaths: [StepMath]? = nil,
                                     _ body: (_ app: String, _ user: String, FunnelUserResult) throws -> Void) throws {
        let scope = FunnelQueryScope()
        let statement = FunnelQueryStatement(spec: spec, app: nil, scope: scope, computeScope: true, stepMaths: stepMaths)
        let evaluator = Self.evaluator(spec)
        try connection.transaction { connection in
            // The scope users are often a small part of all users: read through the (app, user)
            // indexes, their events come at a tenth of the cost of scanning every event, but at
            // the default random_page_cost (4, for uncached disks) the planner scans anyway. The
            // events are mostly cached, so index reads are costed at 1.1 at most for this
            // statement only; a large scope is still scanned.
            let previous = try connection.query("select current_setting('random_page_cost')").scalar(String.self)
            try connection.query("""
                select set_config('random_page_cost', least(current_setting('random_page_cost')::float8, 1.1)::text, true)
                """)
            defer { _ = try? connection.query("select set_config('random_page_cost', $1, true)", [previous]) }
            _ = try stream(statement) { app, user, events in
                for result in Self.evaluate(events, spec: spec, scope: scope, evaluator: evaluator, stepMaths: stepMaths) {
                    try body(app, user, result)
                }
            }
        }
    }

    /// Reads the statement's rows through a cursor and hands each user's events, in time order,
    /// to `body`. Returns the rows read.
    private func stream(_ statement: FunnelQueryStatement,
                        _ body: (_ app: String, _ user: String, [FunnelEventRow]) throws -> Void) throws -> Int {
        try stream(statement) { app, user, events, _ in try body(app, user, events) }
    }

    /// As above, with each event's interval start (funnel trends). The rows come unsorted, in
    /// binary format, and are kept in columns; then each user's events are put in time order
    /// here. Users whose events at one instant differ are read again in the statement's order,
    /// which settles such ties, and handed last. Retention reads its events through it too.
    func stream(_ statement: FunnelQueryStatement,
                        _ body: (_ app: String, _ user: String, [FunnelEventRow], [Int64?]) throws -> Void) throws -> Int {
        var columns = FunnelEventColumns(wordCount: statement.wordCount)
        let rows = try connection.stream(statement.sql, statement.parameters, batchRows: Self.fetchRows) { batch in
            try columns.append(batch)
        }
        let tied = try columns.forEachUser(sortingByTime: true, statement: statement, body)
        guard !tied.isEmpty else { return rows }
        columns = FunnelEventColumns(wordCount: statement.wordCount)
        let ordered = statement.ordered(for: tied)
        try connection.stream(ordered.sql, ordered.parameters, batchRows: Self.fetchRows) { batch in
            try columns.append(batch)
        }
        _ = try columns.forEachUser(sortingByTime: false, statement: statement, body)
        return rows
    }

    /// The app a query reads: `named`, else the default (the one with the most installs).
    func app(of named: String?) throws -> String {
        guard let app = try named ?? connection.query(SQLCatalog.text("query/default_app.sql")).scalar(String?.self) else {
            throw FunnelQueryError("no events are loaded yet: load files with funnel ingest first")
        }
        return app
    }

    /// Warns of event names the app has no event of (they count nobody, as in PostHog); refuses
    /// filters or breakdowns on keys no event of the known names has, and regular expressions
    /// PostgreSQL cannot compile, each named.
    func check(_ spec: EventFunnelSpec, app: String, defaulted: Bool) throws {
        let names = Array(Set(spec.matchers.flatMap(\.events))).sorted()
        let unknown = try warnUnknown(names, app: app, defaulted: defaulted)
        for (index, matcher) in spec.matchers.enumerated() {
            let what = index < spec.steps.count ? "step \(index + 1)" : "exclusion \(index - spec.steps.count + 1)"
            try checkFilters(of: matcher.known(excluding: unknown), named: what, app: app)
        }
        if let breakdown = spec.breakdown, breakdown.source == .event {
            let names = Array(Set(spec.steps.flatMap(\.events)).subtracting(unknown)).sorted()
            let has = try connection.query(SQLCatalog.text("query/funnel_property_check.sql"),
                                           [app, names, breakdown.property]).scalar(Bool.self)
            if !has && !names.isEmpty { throw FunnelQueryError("--breakdown \(breakdown.property): no step event has this property") }
        }
        if let breakdown = spec.breakdown, breakdown.source == .person {
            let has = try connection.query(SQLCatalog.text("query/funnel_person_property_check.sql"),
                                           [app, breakdown.property]).scalar(Bool.self)
            if !has {
                throw FunnelQueryError("--breakdown \(breakdown.property) --breakdown-type person: no user has this "
                    + "property (person properties: network, campaign, country, platform, and keys events set "
                    + "under \"$set\" or \"$set_once\")")
            }
        }
    }

    /// Warns (through `warn`) of each of `names` the app has no event of, with the nearest names
    /// and the apps that have it; returns those names.
    func warnUnknown(_ names: [String], app: String, flag: String? = nil, defaulted: Bool) throws -> Set<String> {
        let warnings = try EventNameHints(connection: connection).warnings(app: app, names: names, flag: flag, defaulted: defaulted)
        for warning in warnings { warn(warning) }
        guard !warnings.isEmpty else { return [] }
        let known = try connection.query(SQLCatalog.text("query/funnel_checks.sql"), [app, names])
        return Set(try known.rows.filter { !(try $0.decode(Bool.self, at: 1)) }.map { try $0.decode(String.self, at: 0) })
    }

    /// Refuses a filter of `matcher` (called `what` in the message) on a key no event of its names
    /// has, and a regular expression PostgreSQL cannot compile. Retention checks its events with it.
    /// A matcher whose names are all unknown counts nobody, and its filters are not checked.
    func checkFilters(of matcher: EventMatcher, named what: String, app: String) throws {
        for filter in matcher.filters {
            if filter.op == .regex || filter.op == .notRegex {
                do {
                    _ = try connection.query("select '' ~ $1", [filter.values[0]])
                } catch let error as PostgresError {
                    throw FunnelQueryError("\(what) (\(matcher.label)): \(filter.values[0]) is not a valid regular expression: \(error.message)")
                }
            }
            guard filter.op != .isNotSet, !matcher.events.isEmpty else { continue }
            let has = try connection.query(SQLCatalog.text("query/funnel_property_check.sql"),
                                           [app, matcher.events, filter.key]).scalar(Bool.self)
            if !has {
                throw FunnelQueryError("\(what) (\(matcher.label)): no \(matcher.events.joined(separator: " or ")) event has a property \(filter.key)")
            }
        }
    }

    /// The evaluator for the funnel.
    static func evaluator(_ spec: EventFunnelSpec) -> EventFunnelEvaluator {
        var breakdownStep: Int?
        var byValue = false
        switch spec.breakdown?.attribution {
        case .step(let step): breakdownStep = spec.order == .unordered ? nil : step
        case .allEvents: byValue = spec.breakdown?.source == .event
        default: break
        }
        return EventFunnelEvaluator(stepCount: spec.steps.count, windowMicros: spec.windowMicros, order: spec.order,
                                    breakdownStep: breakdownStep, filterByBreakdown: byValue)
    }

    /// Prepares one user's events (first-time steps, the date range on step 1) and evaluates them
    /// under each breakdown value the attribution gives them.
    static func evaluate(_ input: [FunnelEventRow], spec: EventFunnelSpec, scope: FunnelQueryScope,
                         evaluator: EventFunnelEvaluator, stepMaths: [StepMath]? = nil) -> [FunnelUserResult] {
        var events = input
        let maths = stepMaths ?? [StepMath](repeating: spec.stepMath, count: spec.steps.count)
        if maths.contains(where: { $0 != .total }) {
            // first_time_with_filters: a step only on the first event that fills it; first_time:
            // only on the first event of its name, and only if that event fills it.
            var seen = Set<Int8>()
            var seenNamed = Set<Int8>()
            for index in events.indices {
                let firstNamed = events[index].namedSteps.filter { seenNamed.insert($0).inserted }
                events[index].steps = events[index].steps.filter { step in
                    guard step > 0 else { return true }
                    switch maths[Int(step) - 1] {
                    case .total: return true
                    case .firstTimeWithFilters: return seen.insert(step).inserted
                    case .firstTime: return firstNamed.contains(step)
                    }
                }
            }
        }
        for index in events.indices where events[index].steps.contains(1) {
            let time = events[index].micros
            if let from = scope.fromMicros, time < from { events[index].steps.removeAll { $0 == 1 } }
            if let to = scope.toMicros, time >= to { events[index].steps.removeAll { $0 == 1 } }
        }
        guard events.contains(where: { $0.steps.contains(1) }) || spec.order == .unordered else { return [] }
        return values(events, spec: spec).compactMap { evaluator.evaluate(events, value: $0) }
    }

    /// The breakdown values a user is evaluated under (one nil without a breakdown).
    static func values(_ events: [FunnelEventRow], spec: EventFunnelSpec) -> [String?] {
        guard let breakdown = spec.breakdown else { return [nil] }
        // Touch attribution looks at every event the funnel matched, exclusions included.
        switch breakdown.attribution {
        case .firstTouch: return [events.first { !$0.steps.isEmpty && $0.breakdown?.isEmpty == false }?.breakdown]
        case .lastTouch: return [events.last { !$0.steps.isEmpty && $0.breakdown?.isEmpty == false }?.breakdown]
        default: break
        }
        let stepEvents = events.filter { $0.steps.contains { $0 > 0 } }
        switch breakdown.attribution {
        case .firstTouch, .lastTouch: return []
        case .allEvents:
            guard breakdown.source == .event else { return [stepEvents.first?.breakdown] }
            var seen = Set<String?>()
            return stepEvents.map(\.breakdown).filter { seen.insert($0).inserted }
        case .step(let step):
            // Unordered funnels have no step order: step 1 means any step.
            var seen = Set<String?>()
            let attributed = spec.order == .unordered ? stepEvents : stepEvents.filter { $0.steps.contains(Int8(step)) }
            return attributed.map(\.breakdown).filter { seen.insert($0).inserted }
        }
    }
}
