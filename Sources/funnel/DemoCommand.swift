import ArgumentParser
import Foundation
import FunnelGenerate
import FunnelPipeline
import FunnelReports
import PostgresClient

/// `funnel demo`: the main job in one command on the demo's own database of the embedded cluster
/// (or the selected one, said loudly): generate a data set, migrate, ingest, compute, and write
/// every report format.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole job on a realistic sample: generate, ingest, compute, report.",
        discussion: """
        Writes the sample input into DIR/input and every report format into DIR/reports, then \
        prints the text summary. Idempotent: a second run reuses the generated files (the same \
        arguments give the same bytes) and ingest skips the files already loaded.

        The sample goes into a database of its own, funnel_demo on the embedded cluster, so it \
        never mixes with your data: other commands reach it with --demo (funnel report --demo). \
        With --database-url, DATABASE_URL or PG* variables set, it goes into that database \
        instead, as the app com.example.app, and says so; 'funnel apps delete com.example.app' \
        removes it.
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
        let ownDatabase = database.source() == .embedded || database.source() == .demo
        let app = GeneratorOptions.defaultAppID
        let demo = try DemoJob(directory: dir, users: users, days: days, seed: seed)
            .run(logger: logger) {
                let (connection, settings) = try database.connect(logger: logger, forDemo: true)
                if !ownDatabase {
                    FileHandle.standardErrorWrite("""
                        funnel demo: NOTE: writing the sample app \(app) into the database you selected \
                        (\(settings.redactedDescription)), beside any data of yours. 'funnel apps delete \(app)' \
                        removes it; with no database selected, the demo uses a database of its own.

                        """)
                }
                return (connection, settings)
            }
        print(TextRenderer.render(demo.report, colour: isatty(STDOUT_FILENO) == 1))
        print("Reports (\(demo.written.count) files) in \(demo.reports.path):")
        print("  \(demo.reports.appending(path: "report.html").path)  (open in a browser)")
        print("  \(demo.reports.appending(path: "report.txt").path), *.csv, report.json")
        if ownDatabase {
            print("The sample is in the demo's own database (\(EmbeddedCluster.demoDatabaseName)): "
                + "reach it with --demo, e.g. 'funnel report --demo' or psql \"$(funnel db url --demo)\".")
        }
        print(String(format: "Demo finished in %.0f s.", Date().timeIntervalSince(started)))
    }
}
