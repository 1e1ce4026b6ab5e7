import ArgumentParser
import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelIngest
import FunnelPipeline
import FunnelReports
import Logging
import PostgresClient

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
        let input = URL(fileURLWithPath: dir).appending(path: "input")
        let reports = URL(fileURLWithPath: dir).appending(path: "reports")
        step(1, "generating \(users) users x \(days) days into \(input.path)")
        try generate(into: input)
        step(2, "migrating the database")
        let (connection, settings) = try database.connect(logger: logger)
        do {
            _ = try Migrator().migrate(connection, logger: logger)
        } catch let error as MigrationError {
            throw CommandFailure("\(error)")
        }
        step(3, "ingesting (files already loaded are skipped)")
        let files = try InputDiscovery.expand([input.path])
        let ingest = IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 2)
        let loaded = try ingest.run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: logger)
        let rows = loaded.reduce(0) { $0 + $1.counts.rowsLoaded }
        let skipped = loaded.filter { $0.loadedBy == .anotherRun }.count
        note("\(loaded.count) files: \(rows) rows loaded, \(skipped) file(s) already loaded")
        if let failed = loaded.first(where: { !$0.status.isLoaded }) {
            throw CommandFailure("ingest of \(failed.path) failed: \(failed.message ?? failed.status.rawValue)")
        }
        step(4, "computing the metrics")
        let inForce = try ConfigurationInForce.load(path: nil)
        guard let summary = try ComputeJob(configuration: inForce.configuration, logger: logger)
            .run(connection, options: ComputeOptions(waitForLock: true), alongside: settings)?.compute else {
            throw CommandFailure("another compute is running on this database; try again when it finishes", exitStatus: ExitStatus.busy)
        }
        try inForce.record(on: connection)
        note("\(summary.mode): \(summary.cohortDaysRebuilt) cohort day(s) rebuilt in " + String(format: "%.1f s", summary.seconds))
        step(5, "writing the reports into \(reports.path)")
        let report = try ReportJob.read(ReportRequest(), connection: connection)
        let written = try ReportJob.write(report, formats: ReportFormat.allCases, to: reports.path)
        print(TextRenderer.render(report, colour: isatty(STDOUT_FILENO) == 1))
        print("Reports (\(written.count) files) in \(reports.path):")
        print("  \(reports.appending(path: "report.html").path)  (open in a browser)")
        print("  \(reports.appending(path: "report.txt").path), *.csv, report.json")
        print(String(format: "Demo finished in %.0f s.", Date().timeIntervalSince(started)))
    }

    /// Generates the sample unless the same arguments already generated it (same bytes).
    private func generate(into input: URL) throws {
        let marker = input.appending(path: ".demo-arguments")
        let arguments = "users=\(users) days=\(days) seed=\(seed)\n"
        if let existing = try? String(contentsOf: marker, encoding: .utf8), existing == arguments {
            note("reusing the files generated earlier")
            return
        }
        do {
            let result = try Generator.run(GeneratorOptions(outputDirectory: input.path, users: users, days: days, seed: seed))
            note("\(result.files.count) files, \(result.totalRows) rows")
        } catch let error as GeneratorError {
            throw CommandFailure(error.description)
        }
        try Data(arguments.utf8).write(to: marker)
    }

    private func step(_ number: Int, _ text: String) {
        FileHandle.standardErrorWrite("demo \(number)/5: \(text)\n")
    }

    private func note(_ text: String) {
        FileHandle.standardErrorWrite("  \(text)\n")
    }
}
