import ArgumentParser
import Foundation
import FunnelCore
import FunnelPipeline
import FunnelQuery
import PostgresClient

/// `funnel query`: ad hoc questions answered from the loaded events, without a compute.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Answer ad hoc questions from the loaded events (no compute needed).",
        subcommands: [FunnelQueryCommand.self, RetentionQueryCommand.self, TrendsQueryCommand.self, StickinessQueryCommand.self,
                      LifecycleQueryCommand.self, PathsQueryCommand.self]
    )

    /// Shows a query's warning (an event name its app has no event of) on standard error.
    static func warn(_ message: String) {
        FileHandle.standardErrorWrite("funnel: warning: \(message)\n")
    }
}

/// `funnel query funnel`: a funnel over any events, with PostHog's semantics.
struct FunnelQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "A funnel over any events: steps with property filters, a window, exclusions, breakdowns.",
        discussion: """
        Steps name events as funnel loads them: install, app_open, retention_day, purchase, \
        invite_sent, each onboarding step by its name, ux_<type> for telemetry, and custom events \
        (the events kind). A step may name several events (a | b) and filter on properties:
          --step signup_started --step 'signup_completed where method = email' --window 30m
        Conditions: =, !=, in (a, b), not in (a, b), contains, not contains, ~ and !~ (regular \
        expressions), > and < (numbers), is set, is not set; join them with 'and'; quote values \
        with spaces. An exclusion is a step, optionally limited to 'between I and J' (steps, \
        1-based). The semantics are PostHog's funnel insight's: docs/funnels.md gives each rule \
        with an example.

        Example:
          funnel query funnel --step signup_started --step 'signup_completed where method = email' \\
            --window 30m --exclude app_uninstalled --breakdown platform --breakdown-type person
        """
    )

    @Option(name: .customLong("step"), help: ArgumentHelp("A step, in order (at least 2).", valueName: "step"))
    var steps: [String] = []

    @Option(help: ArgumentHelp("ordered, strict or unordered.", valueName: "order"))
    var order = "ordered"

    @Option(help: ArgumentHelp("Conversion window from the first step: 45s, 30m, 1h, 7d, 2w, 1mo (31 days).", valueName: "window"))
    var window = "14d"

    @Option(name: .customLong("exclude"), help: ArgumentHelp("An exclusion: 'event [where ...] [between I and J]'.", valueName: "exclusion"))
    var exclusions: [String] = []

    @Option(help: ArgumentHelp("total (every occurrence), first_time (a step counts on the user's first event of its name, if that passes the filters) or first_time_with_filters (on their first event passing the filters); one for all steps or one per step, comma-separated (first_time,total).", valueName: "math"))
    var stepMath = "total"

    @Option(help: ArgumentHelp("Break the funnel down by this property.", valueName: "property"))
    var breakdown: String?

    @Option(help: ArgumentHelp("Where the breakdown property is read: event (the events' properties) or person (the user's current properties: the first install's network, campaign, country, platform, and keys events set under \"$set\" or \"$set_once\").", valueName: "source"))
    var breakdownType = "event"

    @Option(help: ArgumentHelp("Which event gives an event breakdown's value: first_touch, last_touch, all_events or step:N.", valueName: "attribution"))
    var attribution = "first_touch"

    @Option(help: ArgumentHelp("The app (default: the one with the most installs).", valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("Only first steps from this UTC date on (YYYY-MM-DD).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Only first steps up to this UTC date, inclusive (YYYY-MM-DD).", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Time to convert between two steps, e.g. 1-3 (default: first to last).", valueName: "I-J"))
    var timeToConvert: String?

    @Option(help: ArgumentHelp("Bins of the time-to-convert histogram (default: the cube root of the users, 1 to 90).", valueName: "n"))
    var bins: Int?

    @Option(help: ArgumentHelp("Funnel trends instead: per day, week (from Sunday) or month (UTC) of step 1, the users who entered and converted.", valueName: "interval"))
    var trend: String?

    @Option(help: ArgumentHelp("text, csv or json.", valueName: "format"))
    var format = "text"

    @Option(help: ArgumentHelp("Also write each user's furthest step as CSV to this file (who converted, who dropped off where).", valueName: "file"))
    var usersOut: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard ["text", "csv", "json"].contains(format) else { throw ValidationError("--format \(format): use text, csv or json") }
        _ = try definition()
        _ = try scope()
        if let bins, bins < 1 || bins > 90 { throw ValidationError("--bins must be between 1 and 90") }
        if let trend, FunnelTrendInterval(rawValue: trend) == nil { throw ValidationError("--trend \(trend): use day, week or month") }
        if trend != nil, try stepMaths().count > 1 {
            throw ValidationError("--step-math per step applies to the funnel's steps, not to --trend; give one math")
        }
    }

    /// The funnel the flags describe.
    func definition() throws -> EventFunnelSpec {
        guard let order = EventFunnelOrder(rawValue: order) else {
            throw ValidationError("--order \(order): use ordered, strict or unordered")
        }
        let maths = try stepMaths()
        let stepMath = maths.count == 1 ? maths[0] : .total
        do {
            let matchers = try steps.map { text throws(FunnelSyntax.Failure) in try FunnelSyntax.matcher(text) }
            var spec = EventFunnelSpec(
                steps: matchers, order: order, windowMicros: try FunnelSyntax.window(window),
                exclusions: try exclusions.map { text throws(FunnelSyntax.Failure) in
                    try FunnelSyntax.exclusion(text, stepCount: matchers.count)
                }, stepMath: stepMath)
            if let breakdown {
                guard let source = FunnelBreakdown.Source(rawValue: breakdownType) else {
                    throw ValidationError("--breakdown-type \(breakdownType): use event or person")
                }
                spec.breakdown = FunnelBreakdown(property: breakdown, source: source, attribution: try parsedAttribution())
            }
            if let problem = spec.problem() { throw ValidationError(problem) }
            if let range = try conversionRange(steps: matchers.count), range.0 >= range.1 {
                throw ValidationError("--time-to-convert \(timeToConvert ?? ""): the first step must come before the second")
            }
            return spec
        } catch let failure as FunnelSyntax.Failure {
            throw ValidationError(failure.description)
        }
    }

    /// The step math: one for all steps, or one per step (comma-separated, PostHog's per-step math).
    func stepMaths() throws -> [StepMath] {
        let maths = try stepMath.split(separator: ",").map { text -> StepMath in
            let name = text.trimmingCharacters(in: .whitespaces)
            guard let math = StepMath(rawValue: name) else {
                throw ValidationError("--step-math \(name): use total, first_time or first_time_with_filters")
            }
            return math
        }
        guard maths.count == 1 || maths.count == steps.count else {
            throw ValidationError("--step-math \(stepMath): give one math for all steps or one per step (\(steps.count))")
        }
        return maths
    }

    func parsedAttribution() throws -> FunnelBreakdown.Attribution {
        switch attribution {
        case "first_touch": return .firstTouch
        case "last_touch": return .lastTouch
        case "all_events": return .allEvents
        default:
            if attribution.hasPrefix("step:"), let step = Int(attribution.dropFirst(5)) { return .step(step) }
            throw ValidationError("--attribution \(attribution): use first_touch, last_touch, all_events or step:N")
        }
    }

    func conversionRange(steps: Int) throws -> (Int, Int)? {
        guard let timeToConvert else { return nil }
        let parts = timeToConvert.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 1, parts[1] <= steps else {
            throw ValidationError("--time-to-convert \(timeToConvert): use I-J with steps 1 to \(steps), like 1-\(steps)")
        }
        return (parts[0], parts[1])
    }

    /// Funnel trends as a table, CSV or JSON.
    static func render(_ points: [FunnelTrendPoint], format: String) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let rows = points.map { point -> (String, Int, Int, String) in
            let date = formatter.string(from: Date(timeIntervalSince1970: Double(point.startMicros) / 1_000_000))
            return (date, point.entered, point.converted, point.conversion.map { String($0) } ?? "")
        }
        switch format {
        case "csv":
            return "interval_start,entered,converted,conversion\n" + rows.map { "\($0.0),\($0.1),\($0.2),\($0.3)\n" }.joined()
        case "json":
            let items = rows.map { #"{"interval_start":"\#($0.0)","entered":\#($0.1),"converted":\#($0.2),"conversion":\#($0.3.isEmpty ? "null" : $0.3)}"# }
            return "[\n  " + items.joined(separator: ",\n  ") + "\n]\n"
        default:
            var out = "interval     entered  converted  conversion\n"
            for row in rows {
                let rate = row.3.isEmpty ? "-" : String(format: "%.1f%%", (Double(row.3) ?? 0) * 100)
                out += row.0.padding(toLength: 11, withPad: " ", startingAt: 0)
                    + String(repeating: " ", count: max(1, 9 - String(row.1).count)) + String(row.1)
                    + String(repeating: " ", count: max(1, 11 - String(row.2).count)) + String(row.2)
                    + String(repeating: " ", count: max(1, 12 - rate.count)) + rate + "\n"
            }
            return out
        }
    }

    func scope() throws -> FunnelQueryScope {
        func micros(_ text: String?, _ flag: String, plusDay: Bool) throws -> Int64? {
            guard let text else { return nil }
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, let date = DateComponents(calendar: Calendar(identifier: .gregorian),
                                                               timeZone: TimeZone(identifier: "UTC"),
                                                               year: parts[0], month: parts[1], day: parts[2]).date,
                  (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
                throw ValidationError("--\(flag) \(text): not a date (YYYY-MM-DD)")
            }
            return Int64((date.timeIntervalSince1970 + (plusDay ? 86_400 : 0)) * 1_000_000)
        }
        return FunnelQueryScope(app: app, fromMicros: try micros(from, "from", plusDay: false),
                                toMicros: try micros(to, "to", plusDay: true))
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.query")
        let (connection, _) = try database.connectMigrated(logger: logger)
        let spec = try definition()
        if let trend = trend.flatMap(FunnelTrendInterval.init(rawValue:)) {
            let points: [FunnelTrendPoint]
            do {
                points = try FunnelQueryRunner(connection: connection, warn: QueryCommand.warn).trends(spec, scope: try scope(), interval: trend)
            } catch let error as FunnelQueryError {
                throw CommandFailure.usage(error.description)
            }
            print(Self.render(points, format: format), terminator: "")
            return
        }
        let result: FunnelQueryResult
        do {
            let maths = try stepMaths()
            result = try FunnelQueryRunner(connection: connection, warn: QueryCommand.warn)
                .run(spec, scope: try scope(), stepMaths: maths.count > 1 ? maths : nil)
        } catch let error as FunnelQueryError {
            throw CommandFailure.usage(error.description)
        } catch let error as PostgresError where error.sqlState == .undefinedTable || error.sqlState == .undefinedFunction {
            throw CommandFailure("the schema is missing or out of date (\(error.message)); run 'funnel migrate', then try again")
        }
        let range = try conversionRange(steps: spec.steps.count) ?? (1, spec.steps.count)
        let conversion = result.timeToConvert(from: range.0, to: range.1, bins: bins)
        switch format {
        case "csv": print(result.csv(), terminator: "")
        case "json": print(try result.json(timeToConvert: conversion), terminator: "")
        default: print(result.text(timeToConvert: conversion), terminator: "")
        }
        if let usersOut {
            do {
                try result.usersCSV().write(toFile: usersOut, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot write \(usersOut): \(error.localizedDescription)")
            }
        }
    }
}
