import ArgumentParser
import Foundation
import FunnelCompute
import FunnelCore
import FunnelPipeline
import PostgresClient

/// `funnel compute`: brings every derived table up to date.
struct ComputeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compute",
        abstract: "Bring user facts, cohort rollups and metric marts up to date.",
        discussion: """
        By default works only on what new data touched: the rows of ingested files no compute has \
        seen yet are folded into the users they belong to (cost follows the new rows, not the \
        history), the cohort days where new installs land are rebuilt, and so is the onboarding \
        friction of the telemetry sessions from the new files' days on (on a second connection, \
        beside the metrics). \
        --full rebuilds everything, friction too (beside the metrics as well); --from/--to \
        limit either to a range of cohort dates (friction then runs after the metrics). A \
        changed configuration forces a full rebuild, with a warning naming the settings that \
        changed and what the rebuild redoes. Only one compute runs at a time: a second one \
        exits with status 75 saying another compute runs (or waits, with --wait).

        Configuration: --config FILE, else $FUNNEL_CONFIG, else ./funnel.toml, else \
        $FUNNEL_HOME/funnel.toml, else the defaults (UTC, calendar days, funnel windows 7/30 days, \
        regular user = 3 opens on days 1-7, revenue share 1.0, k-factor window 30 days). Every \
        problem in the file is reported at once. The file and settings in force are printed, \
        kept with the computed data and shown in every report.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Only cohort dates from this date on (YYYY-MM-DD).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Only cohort dates up to this date (YYYY-MM-DD).", valueName: "date"))
    var to: String?

    @Flag(help: "Rebuild everything (in range), not only what new data touched.")
    var full = false

    @Option(help: ArgumentHelp("Configuration file (TOML).", valueName: "file"))
    var config: String?

    @Flag(help: "Wait for a running compute to finish instead of exiting.")
    var wait = false

    @Flag(help: "Print one JSON document instead of the human summary.")
    var json = false

    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, PostgresDate(value) == nil {
                throw ValidationError("\(name) expects a date as YYYY-MM-DD, got \"\(value)\"")
            }
        }
        if let from, let to, let start = PostgresDate(from), let end = PostgresDate(to), end < start {
            throw ValidationError("--to (\(to)) is before --from (\(from))")
        }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.compute")
        let inForce = try ConfigurationInForce.load(path: config)
        let (connection, settings) = try database.connectMigrated(logger: logger)
        let options = ComputeOptions(full: full, from: from.flatMap(PostgresDate.init),
                                     to: to.flatMap(PostgresDate.init), waitForLock: wait)
        let outcome = try ComputeRun(configuration: inForce, logger: logger)
            .run(connection, options: options, alongside: settings) { FileHandle.standardErrorWrite($0 + "\n") }
        let result = outcome.result
        let change = outcome.change
        let summary = result.compute
        if json {
            try printJSON(ComputeOutput(compute: summary, friction: result.friction, configuration: inForce.output(change: change)))
            return
        }
        print("compute \(summary.mode)\(summary.configurationChanged ? " (configuration changed)" : ""): "
            + "\(summary.cohortDaysRebuilt) cohort day(s), \(summary.usersRebuilt) user(s) rebuilt in "
            + String(format: "%.2f s", summary.seconds))
        print("days counted as \(summary.dayRule), time zone \(summary.timeZone)")
        print("configuration: \(inForce.sourceLabel)")
        if let friction = result.friction {
            print("friction: \(friction.sessionsScanned) session(s) scanned, \(friction.pairsTested) (screen, type) pair(s) "
                + "tested, \(friction.flagged.count) flagged" + String(format: " in %.2f s", friction.seconds))
        }
        for money in summary.unconverted {
            print("warning: \(money.appID): \(money.notice)")
        }
        if !summary.failedChecks.isEmpty {
            print("warning: invariant checks found offending rows: \(summary.failedChecks.joined(separator: ", "))")
        }
    }

    /// The configuration from --config, else the first default location that exists, else defaults.
    static func loadConfiguration(path: String?) throws -> FunnelConfiguration {
        try ConfigurationInForce.load(path: path).configuration
    }
}

/// `funnel compute --json`: the compute summary's fields, plus `friction` when it ran.
private struct ComputeOutput: Encodable {
    let compute: ComputeSummary
    let friction: FrictionSummary?
    /// The configuration in force: its file, every setting, and what changed since the last compute.
    let configuration: ConfigurationInForce.Output

    private enum Keys: String, CodingKey { case friction, configuration }

    private struct FrictionOutput: Encodable {
        let sessionsScanned: Int
        let pairsTested: Int
        let flagged: Int
        let seconds: Double
    }

    func encode(to encoder: any Encoder) throws {
        try compute.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(configuration, forKey: .configuration)
        if let friction {
            try container.encode(FrictionOutput(sessionsScanned: friction.sessionsScanned, pairsTested: friction.pairsTested,
                                                flagged: friction.flagged.count,
                                                seconds: friction.seconds),
                                 forKey: .friction)
        }
    }
}
