import ArgumentParser
import Foundation
import FunnelCore
import FunnelPipeline
import FunnelQuery
import PostgresClient

/// `funnel query retention`: retention from any start event to any return event, with PostHog's
/// semantics, straight from the loaded events.
struct RetentionQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Retention from any start event to any return event, by day, week or month.",
        discussion: """
        A user joins the cohort of the period of their first start event (--first-time, the \
        default) or of every period with a start event (--recurring); period k counts the members \
        with at least --min-occurrences return events in the k-th period after it. Events and \
        filters are written as in funnel query funnel: 'purchase where revenue > 5'. Days are \
        calendar days in the time zone (or 24-hour periods, --day-rule 24h), weeks start on \
        Sunday. Periods that ended by --as-of (default: the app's last date with data) are counted \
        (0 when nobody came back); later ones are blank. docs/retention.md gives each rule with an \
        example.

        Example:
          funnel query retention --start onboarding_complete --return 'purchase where revenue > 5' \\
            --period week --periods 8 --recurring --min-occurrences 2 --breakdown network --breakdown-type person
        """
    )

    @Option(help: ArgumentHelp("The start event, with optional filters (default: install).", valueName: "event"))
    var start = "install"

    @Option(name: .customLong("return"), help: ArgumentHelp("The return event, with optional filters (default: app_open).", valueName: "event"))
    var returning = "app_open"

    @Flag(help: "Cohorts by each user's first start event (the default).")
    var firstTime = false

    @Flag(help: "A cohort per period in which a user does the start event.")
    var recurring = false

    @Option(help: ArgumentHelp("day, week (from Sunday) or month.", valueName: "period"))
    var period = "day"

    @Option(help: ArgumentHelp("Day periods: cohorts by week (from Sunday) or month instead of by day; each member's days count from their own start date.", valueName: "period"))
    var cohortPeriod: String?

    @Option(help: ArgumentHelp("The last period reported (default: 30 days, 12 weeks or 12 months).", valueName: "n"))
    var periods: Int?

    @Option(help: ArgumentHelp("Return events a user needs in a period for it to count.", valueName: "k"))
    var minOccurrences = 1

    @Option(help: ArgumentHelp("Day periods: calendar (dates in the time zone) or 24h (24-hour periods from the start event).", valueName: "rule"))
    var dayRule = "calendar"

    @Option(help: ArgumentHelp("IANA time zone of dates, weeks and months (default: time_zone of funnel.toml, else UTC).", valueName: "zone"))
    var timeZone: String?

    @Option(help: ArgumentHelp("Bracket retention ranges of periods (default for days: 1-3,4-7,8-14; none for weeks and months).", valueName: "ranges"))
    var brackets: String?

    @Option(help: ArgumentHelp("The data is complete through this date (default: the app's last date with data); later periods are blank.", valueName: "date"))
    var asOf: String?

    @Option(help: ArgumentHelp("Only cohorts from this date on (YYYY-MM-DD, in the time zone).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Only cohorts up to this date, inclusive.", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Break retention down by this property.", valueName: "property"))
    var breakdown: String?

    @Option(help: ArgumentHelp("event (the value on the cohort's start event) or person (the user's first install: network, campaign, country, platform).", valueName: "source"))
    var breakdownType = "event"

    @Option(help: ArgumentHelp("The app (default: the one with the most installs).", valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("text, csv or json.", valueName: "format"))
    var format = "text"

    @Option(help: ArgumentHelp("funnel.toml to take the time zone from.", valueName: "file"))
    var config: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard ["text", "csv", "json"].contains(format) else { throw ValidationError("--format \(format): use text, csv or json") }
        _ = try definition(timeZone: timeZone ?? "UTC")
        _ = try scope()
    }

    /// The retention the flags describe.
    func definition(timeZone: String) throws -> RetentionSpec {
        if firstTime && recurring { throw ValidationError("--first-time and --recurring exclude each other; give one") }
        guard let period = RetentionPeriod(rawValue: period) else {
            throw ValidationError("--period \(period): use day, week or month")
        }
        guard let rule = DayRule(rawValue: dayRule) else { throw ValidationError("--day-rule \(dayRule): use calendar or 24h") }
        var ranges: [ClosedRange<Int>] = []
        let bracketText = brackets ?? (period == .day ? "1-3,4-7,8-14" : "")
        for text in bracketText.split(separator: ",") {
            let parts = text.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let first = parts[0], let last = parts[1], first >= 0, first <= last else {
                throw ValidationError("--brackets \(bracketText): use ranges of periods first-last, like 1-3,4-7")
            }
            ranges.append(first...last)
        }
        do {
            var spec = RetentionSpec(
                start: try FunnelSyntax.matcher(start), returning: try FunnelSyntax.matcher(returning),
                cohortType: recurring ? .recurring : .firstTime, period: period, dayRule: rule,
                periods: periods ?? (period == .day ? 30 : 12), minOccurrences: minOccurrences, brackets: ranges,
                timeZone: timeZone)
            if let breakdown {
                guard let source = FunnelBreakdown.Source(rawValue: breakdownType) else {
                    throw ValidationError("--breakdown-type \(breakdownType): use event or person")
                }
                spec.breakdown = FunnelBreakdown(property: breakdown, source: source)
            }
            if let cohortPeriod {
                guard let cohorts = RetentionPeriod(rawValue: cohortPeriod) else {
                    throw ValidationError("--cohort-period \(cohortPeriod): use week or month")
                }
                spec.cohortPeriod = cohorts
            }
            if let problem = spec.problem() { throw ValidationError(problem) }
            return spec
        } catch let failure as FunnelSyntax.Failure {
            throw ValidationError(failure.description)
        }
    }

    func scope() throws -> RetentionQueryScope {
        func day(_ text: String?, _ flag: String) throws -> Int? {
            guard let text else { return nil }
            guard let day = RetentionCalendar.day(ofText: text) else { throw ValidationError("--\(flag) \(text): not a date (YYYY-MM-DD)") }
            return day
        }
        return RetentionQueryScope(app: app, fromDay: try day(from, "from"), toDay: try day(to, "to"), asOfDay: try day(asOf, "as-of"))
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.query")
        let zone = try timeZone ?? ComputeCommand.loadConfiguration(path: config).timeZone
        let spec = try definition(timeZone: zone)
        let (connection, _) = try database.connect(logger: logger)
        let result: RetentionQueryResult
        do {
            result = try RetentionQueryRunner(connection: connection, warn: QueryCommand.warn).run(spec, scope: try scope())
        } catch let error as FunnelQueryError {
            throw CommandFailure.usage(error.description)
        } catch let error as PostgresError where error.sqlState == .undefinedTable || error.sqlState == .undefinedFunction {
            throw CommandFailure("the schema is missing or out of date (\(error.message)); run 'funnel migrate', then try again")
        }
        switch format {
        case "csv": print(result.csv(), terminator: "")
        case "json": print(try result.json(), terminator: "")
        default: print(result.text(), terminator: "")
        }
    }
}
