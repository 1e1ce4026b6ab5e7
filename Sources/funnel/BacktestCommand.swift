import ArgumentParser
import Foundation
import FunnelCompute
import FunnelPipeline
import PostgresClient

/// `funnel backtest`: how well projections would have done.
struct BacktestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Check projections against what was observed later.",
        subcommands: [BacktestLTVCommand.self]
    )
}

/// `funnel backtest ltv`: each LTV projection method from the history up to a cutoff, beside the
/// LTV observed later, per network.
struct BacktestLTVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ltv",
        abstract: "Project LTV at a horizon from the history up to a cutoff, with every method, beside what was observed.",
        discussion: """
        Reads what 'funnel compute' built. The history after --cutoff is held out (each cohort \
        loses the days after it; cohorts installed later drop out), each method (power law, \
        development factors, linear tail, per-user BG/NBD, and the ensemble of the two best with the \
        weights of compute's back-test) projects the horizon from what is left, and the projection is compared with the LTV the same cohorts reached on the horizon, once all of \
        them are mature for it. Each app's cutoff is judged by its own history: an app the cutoff \
        falls outside of is named and left out. Without --cutoff, each app's is the latest that \
        leaves every kept cohort mature for the horizon (the first half of its history when none \
        does). 'chosen' marks the method compute's own back-test picked for the app at the \
        back-tested horizon nearest this one (docs/metrics.md, Projected LTV).

        Example:
          funnel backtest ltv --cutoff 2024-03-01 --horizon D90 --format csv
          funnel backtest ltv --app com.example.app --horizon D180
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Hold out the days after this date (YYYY-MM-DD).", valueName: "date"))
    var cutoff: String?

    @Option(help: ArgumentHelp("Only this app (its app_id).", valueName: "app"))
    var app: String?

    @Option(help: ArgumentHelp("The day to project: D180 or 180.", valueName: "day"))
    var horizon = "D180"

    @Option(help: ArgumentHelp("text, csv or json.", valueName: "format"))
    var format = "text"

    var horizonDay: Int? {
        let digits = horizon.hasPrefix("D") || horizon.hasPrefix("d") ? String(horizon.dropFirst()) : horizon
        return Int(digits).flatMap { $0 >= 1 && $0 <= 3650 ? $0 : nil }
    }

    func validate() throws {
        if let cutoff, PostgresDate(cutoff) == nil {
            throw ValidationError("--cutoff expects a date as YYYY-MM-DD, got \"\(cutoff)\"")
        }
        if horizonDay == nil {
            throw ValidationError("--horizon expects a day such as D180 (1 to 3650), got \"\(horizon)\"")
        }
        if !["text", "csv", "json"].contains(format) {
            throw ValidationError("--format expects text, csv or json, got \"\(format)\"")
        }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.backtest")
        let (connection, _) = try database.connect(logger: logger)
        let report: LTVBacktestReport
        do {
            report = try LTVBacktestReport.run(connection, cutoff: cutoff, horizon: horizonDay!, app: app)
        } catch let problem as LTVBacktestReport.Problem {
            throw CommandFailure(problem.message)
        } catch let error as PostgresError where error.sqlState == "42P01" {
            throw CommandFailure("the schema is missing or out of date (\(error.message)); run 'funnel migrate' first")
        }
        switch format {
        case "json": try printJSON(report.rows)
        case "csv": print(csv(report.rows), terminator: "")
        default: print(text(report.rows), terminator: "")
        }
        for skipped in report.skipped {
            FileHandle.standardError.write(Data("note: \(skipped.app) left out: \(skipped.reason)\n".utf8))
        }
    }

    private func money(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "" }

    func csv(_ rows: [LTVBacktestReport.Row]) -> String {
        var out = "app,network,method,cutoff,history_days,horizon,projected,observed,error,chosen\n"
        for row in rows {
            let fields = [row.app, row.network, row.method, row.cutoff, String(row.historyDays), String(row.horizon),
                          money(row.projected), money(row.observed), row.error.map { String(format: "%.4f", $0) } ?? "",
                          String(row.chosen)]
            out += fields.map { $0.contains(",") || $0.contains("\"") ? "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" : $0 }
                .joined(separator: ",") + "\n"
        }
        return out
    }

    func text(_ rows: [LTVBacktestReport.Row]) -> String {
        guard let first = rows.first else { return "No LTV to back-test: no app has computed cohorts.\n" }
        var out = ""
        for app in rows.map(\.app).reduce(into: [String](), { if !$0.contains($1) { $0.append($1) } }) {
            let mine = rows.filter { $0.app == app }
            let sample = mine.first ?? first
            out += "LTV D\(sample.horizon) of \(app) projected from the history up to \(sample.cutoff) "
                + "(\(sample.historyDays + 1) days), against the observed\n"
            let header = ["network", "method", "projected", "observed", "error", ""]
            let table = mine.map { row in
                [row.network, row.method, row.projected.map { String(format: "$%.2f", $0) } ?? "cannot fit",
                 row.observed.map { String(format: "$%.2f", $0) } ?? "not yet",
                 row.error.map { String(format: "%+.1f%%", 100 * $0) } ?? "", row.chosen ? "chosen" : ""]
            }
            let widths = header.indices.map { column in ([header] + table).map { $0[column].count }.max() ?? 0 }
            for line in [header] + table {
                out += "  " + line.enumerated().map { index, cell in
                    index < 2 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[index] - cell.count) + cell
                }.joined(separator: "  ") + "\n"
            }
            if mine.allSatisfy({ $0.observed == nil }) {
                out += "  The history does not reach D\(sample.horizon) yet: pick an earlier --cutoff or a shorter --horizon "
                    + "to compare.\n"
            }
        }
        return out
    }
}
