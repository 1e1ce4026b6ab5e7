import ArgumentParser
import Foundation
import FunnelCore
import FunnelPipeline
import FunnelQuery
import PostgresClient

/// The flags every insight command shares: the app, the range, the time zone and the format.
struct InsightOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The app (default: the one with the most installs).", valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("From this date on (YYYY-MM-DD, in the time zone; default: 6 days before --to).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Through the end of this date (default: the app's last date with data).", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("IANA time zone of dates, hours, weeks and months (default: time_zone of funnel.toml, else UTC).", valueName: "zone"))
    var timeZone: String?

    @Option(help: ArgumentHelp("funnel.toml to take the time zone from.", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("text, csv or json.", valueName: "format"))
    var format = "text"

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard ["text", "csv", "json"].contains(format) else { throw ValidationError("--format \(format): use text, csv or json") }
        _ = try range()
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("--time-zone \(timeZone): not an IANA time zone name (UTC, Europe/Berlin, Asia/Tokyo)")
        }
    }

    func range() throws -> InsightRange {
        func day(_ text: String?, _ flag: String) throws -> Int? {
            guard let text else { return nil }
            guard let day = RetentionCalendar.day(ofText: text) else { throw ValidationError("--\(flag) \(text): not a date (YYYY-MM-DD)") }
            return day
        }
        return InsightRange(app: app, fromDay: try day(from, "from"), toDay: try day(to, "to"))
    }

    func zone() throws -> String { try timeZone ?? ComputeCommand.loadConfiguration(path: config).timeZone }

    static func interval(_ text: String) throws -> InsightInterval {
        guard let interval = InsightInterval(rawValue: text) else { throw ValidationError("--interval \(text): use hour, day, week or month") }
        return interval
    }

    static func weekStart(_ text: String) throws -> WeekStart {
        guard let start = WeekStart(rawValue: text) else { throw ValidationError("--week-start \(text): use sunday or monday") }
        return start
    }

    static func matcher(_ text: String) throws -> EventMatcher {
        do { return try FunnelSyntax.matcher(text) } catch let failure as FunnelSyntax.Failure { throw ValidationError(failure.description) }
    }

    static func breakdown(_ property: String?, _ type: String) throws -> FunnelBreakdown? {
        guard let property else { return nil }
        guard let source = FunnelBreakdown.Source(rawValue: type) else { throw ValidationError("--breakdown-type \(type): use event or person") }
        return FunnelBreakdown(property: property, source: source)
    }

    /// Runs `body` against the database, turning a definition that cannot run into a usage error.
    func run<Result>(_ body: (InsightQueryRunner) throws -> Result) throws -> Result {
        let logger = logging.bootstrap(label: "funnel.query")
        let (connection, _) = try database.connectMigrated(logger: logger)
        do {
            return try body(InsightQueryRunner(connection: connection, warn: QueryCommand.warn))
        } catch let error as FunnelQueryError {
            throw CommandFailure.usage(error.description)
        }
    }

    func print(_ result: InsightResult) throws {
        switch format {
        case "csv": Swift.print(result.csv(), terminator: "")
        case "json": Swift.print(try result.json(), terminator: "")
        default: Swift.print(result.text(), terminator: "")
        }
    }
}

/// `funnel query trends`: events, users or a property per interval, PostHog's trends.
struct TrendsQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "Events, users or a property's figures per hour, day, week or month.",
        discussion: """
        Each --series names events as funnel query funnel does ('purchase where revenue > 5'); \
        --math gives what it counts, once for all series or once per series: total, dau (unique \
        users), weekly_active, monthly_active, first_time_for_user, avg_count_per_user (also min_, \
        max_, median_, p75_, p90_, p95_, p99_), or a numeric property's sum(revenue), avg(...), \
        min, max, median, p75, p90, p95, p99. Series are A, B, ... in --formula. \
        docs/insights.md gives each rule with an example.

        Example:
          funnel query trends --series purchase --series app_open --math 'sum(revenue)' --math dau \\
            --formula A/B --interval week --from 2024-05-01 --to 2024-05-31
        """
    )

    @Option(name: .customLong("series"), help: ArgumentHelp("A series: events with optional filters (repeatable).", valueName: "event"))
    var series: [String] = []

    @Option(name: .customLong("math"), help: ArgumentHelp("What a series counts (one for all, or one per series; default total).", valueName: "math"))
    var maths: [String] = []

    @Option(help: ArgumentHelp("hour, day, week or month.", valueName: "interval"))
    var interval = "day"

    @Option(help: ArgumentHelp("The day weeks start on: sunday or monday.", valueName: "day"))
    var weekStart = "sunday"

    @Option(help: ArgumentHelp("Break each series down by this property (values as text).", valueName: "property"))
    var breakdown: String?

    @Option(help: ArgumentHelp("event (each event's value) or person (the user's current properties).", valueName: "source"))
    var breakdownType = "event"

    @Option(help: ArgumentHelp("Breakdown values shown, most events first; the rest are one (other) line.", valueName: "n"))
    var breakdownLimit = 25

    @Flag(help: "Also count the period of the same length just before the range.")
    var compare = false

    @Option(help: ArgumentHelp("A formula across series, by letter: A/B, (A + B) * 100.", valueName: "formula"))
    var formula: String?

    @Flag(help: "Running totals (distinct users so far, for unique users).")
    var cumulative = false

    @OptionGroup var options: InsightOptions

    func validate() throws {
        _ = try definition(timeZone: options.timeZone ?? "UTC")
    }

    func definition(timeZone: String) throws -> TrendsSpec {
        guard maths.count <= 1 || maths.count == series.count else {
            throw ValidationError("--math: give one for all series or one per series (\(series.count))")
        }
        let parsed = try series.enumerated().map { index, text -> TrendSeries in
            let mathText = maths.isEmpty ? "total" : maths[maths.count == 1 ? 0 : index]
            guard let math = TrendMath(text: mathText) else {
                throw ValidationError("--math \(mathText): use total, dau, weekly_active, monthly_active, first_time_for_user, "
                    + "avg_count_per_user (or min_, max_, median_, p75_, p90_, p95_, p99_), or sum(property), avg(property), ...")
            }
            return TrendSeries(matcher: try InsightOptions.matcher(text), math: math)
        }
        let spec = TrendsSpec(series: parsed, interval: try InsightOptions.interval(interval), weekStart: try InsightOptions.weekStart(weekStart),
                              timeZone: timeZone, breakdown: try InsightOptions.breakdown(breakdown, breakdownType),
                              breakdownLimit: breakdownLimit, compare: compare, formula: formula, cumulative: cumulative)
        if let problem = spec.problem() { throw ValidationError(problem) }
        return spec
    }

    func run() throws {
        let spec = try definition(timeZone: try options.zone())
        try options.print(try options.run { try $0.trends(spec, range: try options.range()) })
    }
}

/// `funnel query stickiness`: users by the number of intervals they did an event on.
struct StickinessQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stickiness",
        abstract: "For each N, the users who did an event on exactly N days (weeks, months) of the range.",
        discussion: """
        Example:
          funnel query stickiness --series app_open --interval day --from 2024-05-01 --to 2024-05-28
        docs/insights.md gives each rule with an example.
        """
    )

    @Option(name: .customLong("series"), help: ArgumentHelp("A series: events with optional filters (repeatable).", valueName: "event"))
    var series: [String] = []

    @Option(help: ArgumentHelp("hour, day, week or month.", valueName: "interval"))
    var interval = "day"

    @Option(help: ArgumentHelp("The day weeks start on: sunday or monday.", valueName: "day"))
    var weekStart = "sunday"

    @Option(help: ArgumentHelp("Break each series down by this property.", valueName: "property"))
    var breakdown: String?

    @Option(help: ArgumentHelp("event (each event's value) or person (the user's current properties).", valueName: "source"))
    var breakdownType = "event"

    @Flag(help: "Users on at least N intervals instead of exactly N.")
    var cumulative = false

    @OptionGroup var options: InsightOptions

    func validate() throws {
        if series.isEmpty { throw ValidationError("give at least one --series, like --series app_open") }
        _ = try definition(timeZone: "UTC")
    }

    func definition(timeZone: String) throws -> StickinessSpec {
        StickinessSpec(series: try series.map(InsightOptions.matcher), interval: try InsightOptions.interval(interval),
                       weekStart: try InsightOptions.weekStart(weekStart), timeZone: timeZone,
                       breakdown: try InsightOptions.breakdown(breakdown, breakdownType), cumulative: cumulative)
    }

    func run() throws {
        let spec = try definition(timeZone: try options.zone())
        try options.print(try options.run { try $0.stickiness(spec, range: try options.range()) })
    }
}

/// `funnel query lifecycle`: new, returning, resurrecting and dormant users per interval.
struct LifecycleQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "New, returning, resurrecting and dormant (negative) users of an event per interval.",
        discussion: """
        Example:
          funnel query lifecycle --event app_open --interval week --from 2024-05-05 --to 2024-06-01
        docs/insights.md gives each rule with an example.
        """
    )

    @Option(help: ArgumentHelp("The event, with optional filters.", valueName: "event"))
    var event: String

    @Option(help: ArgumentHelp("hour, day, week or month.", valueName: "interval"))
    var interval = "day"

    @Option(help: ArgumentHelp("The day weeks start on: sunday or monday.", valueName: "day"))
    var weekStart = "sunday"

    @OptionGroup var options: InsightOptions

    func validate() throws { _ = try definition(timeZone: "UTC") }

    func definition(timeZone: String) throws -> LifecycleSpec {
        LifecycleSpec(event: try InsightOptions.matcher(event), interval: try InsightOptions.interval(interval),
                      weekStart: try InsightOptions.weekStart(weekStart), timeZone: timeZone)
    }

    func run() throws {
        let spec = try definition(timeZone: try options.zone())
        try options.print(try options.run { try $0.lifecycle(spec, range: try options.range()) })
    }
}

/// `funnel query paths`: the paths users take after a start event or before an end event.
struct PathsQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "The paths users take after a start event or before an end event, as counted edges.",
        discussion: """
        A path is a run of a user's events with no gap of 30 minutes or more, consecutive repeats \
        collapsed. Edges (step, source, target) count the paths they are in, not users.

        Example:
          funnel query paths --start app_open --steps 4 --group 'ux_*' --edge-limit 20
        docs/insights.md gives each rule with an example.
        """
    )

    @Option(help: ArgumentHelp("Paths from their first event of this name.", valueName: "event"))
    var start: String?

    @Option(help: ArgumentHelp("Paths up to their first event of this name.", valueName: "event"))
    var end: String?

    @Option(help: ArgumentHelp("Events a path keeps (2 to 20).", valueName: "n"))
    var steps = 5

    @Option(help: ArgumentHelp("Edges shown, most paths first.", valueName: "n"))
    var edgeLimit = 50

    @Option(name: .customLong("group"), help: ArgumentHelp("Show every event name this pattern matches (* for any text) as the pattern (repeatable).", valueName: "pattern"))
    var groups: [String] = []

    @OptionGroup var options: InsightOptions

    func validate() throws {
        if let problem = definition(timeZone: "UTC").problem() { throw ValidationError(problem) }
    }

    func definition(timeZone: String) -> PathsSpec {
        PathsSpec(start: start, end: end, steps: steps, edgeLimit: edgeLimit, groups: groups, timeZone: timeZone)
    }

    func run() throws {
        let spec = definition(timeZone: try options.zone())
        let result = try options.run { try $0.paths(spec, range: try options.range()) }
        switch options.format {
        case "csv": print(result.csv(), terminator: "")
        case "json": print(try result.json(), terminator: "")
        default: print(result.text(), terminator: "")
        }
    }
}
