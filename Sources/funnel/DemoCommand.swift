import ArgumentParser
import Foundation
import FunnelGenerate
import FunnelPipeline
import FunnelReports

/// `funnel demo`: the main job in one command on the embedded default (or the configured
/// database): generate a data set, migrate, ingest, compute, and write every report format.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole job on a realistic sample: generate, ingest, compute, report.",
        discussion: """
        Writes the sample input into DIR/input and every report format into DIR/reports, then \
        prints the text summary. Idempotent: a second run reuses the generated files (the same \
        arguments give the same bytes) and ingest skips the files already loaded.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Directory for the sample input and the reports.", valueName: "dir"))
    var dir = "funnel-demo"

    @Option(help: "Users acquired from networks and organically (invited users come on top).")
    var users = 20_000

    @Option(help: "Days of data.")
    var days = 60

    @Option(help: "Random seed of the generated data.")
    var seed: UInt64 = 1

    func validate() throws {
        if let problem = GeneratorOptions(outputDirectory: dir + "/input", users: users, days: days, seed: seed).problem {
            throw ValidationError(problem)
        }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.demo")
        let started = Date()
        let demo = try DemoJob(directory: dir, users: users, days: days, seed: seed)
            .run(logger: logger) { try database.connect(logger: logger) }
        print(TextRenderer.render(demo.report, colour: isatty(STDOUT_FILENO) == 1))
        print("Reports (\(demo.written.count) files) in \(demo.reports.path):")
        print("  \(demo.reports.appending(path: "report.html").path)  (open in a browser)")
        print("  \(demo.reports.appending(path: "report.txt").path), *.csv, report.json")
        print(String(format: "Demo finished in %.0f s.", Date().timeIntervalSince(started)))
    }
}
