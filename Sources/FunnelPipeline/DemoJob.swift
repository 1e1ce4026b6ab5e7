public import Foundation
import FunnelCompute
import FunnelGenerate
import FunnelIngest
public import FunnelReports
public import Logging
public import PostgresClient

/// `funnel demo` as one job: a sample generated into `DIR/input` (reused when the same arguments
/// made it), the schema migrated, the sample ingested, the metrics computed under the
/// configuration in force, and every report format written into `DIR/reports`. Says each step
/// on standard error as it goes.
public struct DemoJob {
    public let directory: String
    public let users: Int
    public let days: Int
    public let seed: UInt64

    public init(directory: String, users: Int, days: Int, seed: UInt64) {
        self.directory = directory
        self.users = users
        self.days = days
        self.seed = seed
    }

    /// The report the demo wrote, and where.
    public struct Outcome {
        public let report: Report
        public let written: [URL]
        public let reports: URL
    }

    /// Runs the five steps; `connect` gives the selected database once the sample is generated.
    public func run(logger: Logger, connect: () throws -> (PostgresConnection, ConnectionSettings)) throws -> Outcome {
        let input = URL(fileURLWithPath: directory).appending(path: "input")
        let reports = URL(fileURLWithPath: directory).appending(path: "reports")
        step(1, "generating \(users) users x \(days) days into \(input.path)")
        try generate(into: input)
        step(2, "migrating the database")
        let (connection, settings) = try connect()
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
        let job = ComputeJob(configuration: inForce.configuration, source: inForce.source, logger: logger)
        guard let summary = try ComputeLanes(job: job).run(connection, options: ComputeOptions(waitForLock: true), alongside: settings)?.compute else {
            throw CommandFailure("another compute is running on this database; try again when it finishes", exitStatus: ExitStatus.busy)
        }
        note("\(summary.mode): \(summary.cohortDaysRebuilt) cohort day(s) rebuilt in " + String(format: "%.1f s", summary.seconds))
        step(5, "writing the reports into \(reports.path)")
        let report = try ReportJob.read(ReportRequest(), connection: connection)
        let written = try ReportJob.write(report, formats: ReportFormat.allCases, to: reports.path)
        return Outcome(report: report, written: written, reports: reports)
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
        FileHandle.standardError.write(Data("demo \(number)/5: \(text)\n".utf8))
    }

    private func note(_ text: String) {
        FileHandle.standardError.write(Data("  \(text)\n".utf8))
    }
}
