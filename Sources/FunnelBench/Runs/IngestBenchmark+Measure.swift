import Foundation
import FunnelCompute
public import Logging
public import PostgresClient

extension IngestBenchmark {
    /// `funnel bench ingest`: generates `events` installs as CSV, loads the valid rows by plain
    /// COPY (the baseline) and by the whole ingest path into a scratch database beside the one
    /// `selectedSettings` gives, and prints both rates, their ratio and the peak memory. With `keep`,
    /// the files and the database stay.
    public static func measure(events: Int, keep: Bool, logger: Logger, selectedSettings: () throws -> ConnectionSettings) throws {
        let settings = try selectedSettings()
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
