import ArgumentParser
import FunnelBench
import Foundation
import FunnelCompute
import FunnelIngest
import Logging
import PostgresClient

/// `funnel bench ingest`: end-to-end ingest throughput beside plain COPY, in one run.
struct BenchIngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest throughput and peak memory beside a plain COPY baseline.",
        discussion: """
        Generates N installs as CSV (about 1% invalid rows), then loads the valid rows twice into a \
        fresh database created (and dropped) on the configured server: by plain COPY FROM STDIN \
        into a copy of raw_installs with the same primary key and indexes (baseline), and by the \
        whole ingest path (checksum, parse, validate, stage, merge, bookkeeping). Prints rows/s of \
        both, their ratio and this process's peak memory.
        """
    )

    @Option(help: "Events to generate.")
    var events = 10_000_000

    @Flag(help: "Keep the generated files and the benchmark database.")
    var keep = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard events >= 1000 else { throw ValidationError("--events must be at least 1000") }
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        let settings = try database.settings(logger: logger)
        let directory = "/tmp/funnel-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(atPath: directory) } }
        print("generating \(events) installs in \(directory) ...")
        let (csv, copyText) = try IngestBenchmark.prepare(rows: events, directory: directory)

        let databaseName = "funnel_bench_\(getpid())"
        let admin = try settings.connect(logger: logger)
        try admin.execute("create database \(try admin.quoteIdentifier(databaseName))")
        defer {
            if !keep { _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(databaseName)) with (force)") }
        }
        var options = ConnectionString.parse(settings.conninfo) ?? [:]
        options["dbname"] = databaseName
        let conninfo = options.map { "\($0.key)='\($0.value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'"))'" }
            .sorted().joined(separator: " ")
        let benchSettings = ConnectionSettings(conninfo: conninfo, searchPath: settings.searchPath)
        try Migrator().migrate(try benchSettings.connect(logger: logger), logger: logger)

        let result = try IngestBenchmark.run(rows: events, csv: csv, copyText: copyText, settings: benchSettings, logger: logger)
        print("""
            file: \(result.rowsGenerated) rows, \(result.fileBytes / 1_000_000) MB CSV; \(result.baselineRows) valid, \(result.rejected) rejected
            baseline (COPY FROM STDIN into raw_installs' twin, same PK and indexes): \(result.baselineRows) rows in \(String(format: "%.2f", result.baselineSeconds)) s = \(Int(result.baselineRowsPerSecond)) rows/s
            funnel ingest (checksum, parse, validate, stage, merge, bookkeeping): \(result.ingestRows) rows in \(String(format: "%.2f", result.ingestSeconds)) s = \(Int(result.ingestRowsPerSecond)) rows/s
            ratio: \(String(format: "%.2f", result.ratio)) (target >= 0.70)
            peak memory (VmHWM): \(result.peakMemoryBytes / 1_048_576) MB (target < 150 MB)
            """)
        if keep { print("kept: \(directory) and database \(databaseName)") }
    }
}
