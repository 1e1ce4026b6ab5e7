import Foundation
import FunnelCore
public import FunnelGenerate
import FunnelIngest
public import Logging
public import PostgresClient

/// `funnel bench ingest`, the history half: a generated history (every kind, duplicates, late
/// events, restated spend) imported by the real ingest path into an empty database, beside
/// PostgreSQL's limit on the same files: plain `COPY ... FROM STDIN (format csv)` of each file as
/// it is into an unlogged table without index or type (every column text), one stream.
public enum HistoryIngestBenchmark {
    /// What one run measured.
    public struct Result: Sendable {
        public var files: Int
        public var fileBytes: Int64
        /// Rows in the files (the limit's COPY stores every one, header aside).
        public var rowsInFiles: Int
        public var limitSeconds: Double
        /// Rows stored by funnel's import (deduplicated, rejects aside).
        public var rowsLoaded: Int
        public var rowsRead: Int
        public var importSeconds: Double
        /// The import's workers (each its own connection and COPY stream).
        public var importWorkers: Int
        /// Peak resident memory of this process (VmHWM) after the import, in bytes.
        public var peakMemoryBytes: Int
        /// The machine's one-minute load average when the limit started, when the import started
        /// and when it ended: on a shared machine the ratio means little without it.
        public var loadAverages: [Double] = []

        /// Rows per second of the limit, counting the rows of the files.
        public var limitRowsPerSecond: Double { Double(rowsInFiles) / max(limitSeconds, 1e-9) }
        /// Rows per second of the import, counting the rows read (what the files hold).
        public var importRowsPerSecond: Double { Double(rowsRead) / max(importSeconds, 1e-9) }
        public var ratio: Double { importRowsPerSecond / max(limitRowsPerSecond, 1e-9) }
    }

    /// Generates the history into `directory`, then has the kernel write the files out: left
    /// dirty, their 1.3 GB were written back (after the kernel's 30 s) in the middle of the import.
    public static func generate(users: Int, days: Int, directory: String) throws -> GenerationResult {
        let result = try Generator.run(GeneratorOptions(outputDirectory: directory, users: users, days: days, seed: 1))
        sync()
        return result
    }

    /// The limit: each file COPYed as it is into a fresh unlogged, unindexed all-text table of the
    /// database `limit` (one stream), then the funnel import of the same files into the migrated
    /// database `funnel` with `workers` workers and the loader's own choice of merge.
    public static func run(files: [String], limit: ConnectionSettings, funnel: ConnectionSettings, workers: Int,
                           logger: Logger) throws -> Result {
        let connection = try limit.connect(logger: logger)
        var loads = [loadAverage()]
        var bytes: Int64 = 0
        var rowsInFiles = 0
        let clock = ContinuousClock()
        var started = clock.now
        for (index, path) in files.enumerated() {
            guard let header = try firstLine(path) else { continue }
            let columns = header.split(separator: ",").map { try? connection.quoteIdentifier(String($0)) }
            let table = "limit_\(index)"
            try connection.execute("create unlogged table \(table) (\(columns.map { ($0 ?? "\"?\"") + " text" }.joined(separator: ", ")))")
            rowsInFiles += try connection.copyIn("copy \(table) from stdin (format csv, header true)") { writer in
                let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? input.close() }
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    bytes += Int64(chunk.count)
                    try chunk.withUnsafeBytes { try writer.write($0) }
                }
            }
        }
        let limitSeconds = seconds(clock.now - started)
        // The limit's tables go before the import: unlogged, their 1.3 GB of dirty pages would
        // otherwise stay in shared buffers (a checkpoint does not write unlogged tables) and be
        // written out by the import's backends as they need buffers.
        for index in files.indices { try connection.execute("drop table if exists limit_\(index)") }
        try connection.execute("checkpoint")

        loads.append(loadAverage())
        started = clock.now
        let reports = try IngestRun(settings: funnel, kind: nil, assumeTimeZone: nil, workers: workers)
            .run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: logger)
        let importSeconds = seconds(clock.now - started)
        loads.append(loadAverage())
        if let failed = reports.first(where: { $0.status != .loaded }) {
            throw PostgresError(code: .client, message: "\(failed.path) did not load: \(failed.message ?? failed.status.rawValue)")
        }
        return Result(files: files.count, fileBytes: bytes, rowsInFiles: rowsInFiles, limitSeconds: limitSeconds,
                      rowsLoaded: reports.reduce(0) { $0 + $1.counts.rowsLoaded }, rowsRead: reports.reduce(0) { $0 + $1.counts.rowsRead },
                      importSeconds: importSeconds, importWorkers: workers, peakMemoryBytes: IngestBenchmark.peakMemoryBytes(),
                      loadAverages: loads)
    }

    /// The one-minute load average (/proc/loadavg), or 0 where there is none.
    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return 0 }
        return Double(text.split(separator: " ").first ?? "") ?? 0
    }

    private static func firstLine(_ path: String) throws -> String? {
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? input.close() }
        guard let head = try input.read(upToCount: 64 * 1024) else { return nil }
        return String(decoding: head.prefix { $0 != 0x0a && $0 != 0x0d }, as: UTF8.self)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
