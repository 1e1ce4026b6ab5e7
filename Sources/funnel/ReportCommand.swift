import ArgumentParser
import Foundation
import FunnelPipeline
import FunnelReports
import PostgresClient

/// `funnel report`: the reports, read from the metric marts that `funnel compute` writes.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the reports: text, CSV, HTML or JSON.",
        discussion: """
        Without --out, prints the text report (and JSON, when asked for) on standard output. With \
        --out DIR, writes report.txt, funnel.csv, retention.csv, ltv.csv, cpi.csv, kfactor.csv, \
        friction.csv, networks.csv, report.html and report.json (the formats asked for) and prints \
        their paths. CSV rates are fractions 0..1, money is USD, and an immature or undefined value \
        is an empty cell. An empty database gives a short report saying what to load, not an error. \
        With several apps, the text report covers each in turn and --out writes one folder per \
        app; --app names one (an app without data is a usage error that lists the apps there are).
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Formats, comma-separated: text, csv, html, json.", valueName: "formats"))
    var format = "text"

    @Option(help: ArgumentHelp("Directory to write the report files into (created if missing).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("Only install cohorts from this date on (YYYY-MM-DD).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Only install cohorts up to this date (YYYY-MM-DD).", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Breakdowns, comma-separated: network, campaign, country, platform.", valueName: "dims"))
    var by: String?

    @Option(help: ArgumentHelp("The app to report on (default: every app with data, most installs first; with --out, one folder per app when there are several).", valueName: "app-id"))
    var app: String?

    var formats: [ReportFormat] {
        format.split(separator: ",").compactMap { ReportFormat(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    var breakdowns: [ReportRequest.Breakdown] {
        (by ?? "").split(separator: ",").compactMap { ReportRequest.Breakdown(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    func validate() throws {
        for name in format.split(separator: ",") where ReportFormat(rawValue: name.trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("--format \(name): not a format; use text, csv, html or json (comma-separated)")
        }
        if formats.isEmpty { throw ValidationError("--format needs at least one of text, csv, html, json") }
        if out == nil, formats.contains(where: { $0 == .csv || $0 == .html }) {
            throw ValidationError("--format csv and html write files: add --out DIR")
        }
        if out == nil, formats.count > 1 {
            throw ValidationError("several formats write files: add --out DIR (or ask for one of text, json)")
        }
        for name in (by ?? "").split(separator: ",")
        where ReportRequest.Breakdown(rawValue: name.trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("--by \(name): not available; breakdowns are network, campaign, country, platform")
        }
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
        let logger = logging.bootstrap(label: "funnel.report")
        let (connection, _) = try database.connectMigrated(logger: logger)
        let request = ReportRequest(app: app, from: from, to: to, breakdowns: breakdowns)
        let apps = try ReportJob.apps(for: app, connection: connection)
        guard let out else {
            if formats == [.json] {
                guard apps.count <= 1 else {
                    throw CommandFailure.usage("\(apps.count) apps have data (\(apps.joined(separator: ", "))) and the JSON report "
                        + "covers one: add --app APP, or --out DIR for one folder per app")
                }
                print(try JSONRenderer.render(try ReportJob.read(request, connection: connection)), terminator: "")
            } else {
                var texts: [String] = []
                for app in apps.isEmpty ? [nil] : apps.map(Optional.some) {
                    var one = request
                    one.app = app
                    texts.append(TextRenderer.render(try ReportJob.read(one, connection: connection), colour: isatty(STDOUT_FILENO) == 1))
                }
                print(texts.joined(separator: "\n" + String(repeating: "=", count: TextRenderer.width) + "\n\n"), terminator: "")
            }
            return
        }
        let written = try ReportJob.writeEveryApp(apps, request: request, formats: formats, to: URL(fileURLWithPath: out),
                                             connection: connection)
        print("Wrote \(written.count) file(s) to \(out)" + (apps.count > 1 ? " (one folder per app: \(apps.joined(separator: ", ")))" : "") + ":")
        for url in written { print("  \(url.path)") }
    }
}
