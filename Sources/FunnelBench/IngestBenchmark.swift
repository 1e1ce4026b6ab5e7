import FunnelIngest
import Foundation
import FunnelCore
public import Logging
public import PostgresClient

/// `funnel bench ingest`, the daily half: the same generated installs loaded twice in one run, by
/// plain `COPY ... FROM STDIN` into a copy of `raw_installs` (same primary key and indexes) and by
/// the whole ingest path (checksum, parse, validate, stage, merge, bookkeeping) taking the daily
/// merge, as a day's file does, with rows/s of both. The history half is
/// ``HistoryIngestBenchmark``.
public enum IngestBenchmark {
    /// What one run measured.
    public struct Result: Sendable {
        public var rowsGenerated: Int
        public var fileBytes: Int64
        public var baselineRows: Int
        public var baselineSeconds: Double
        public var ingestRows: Int
        public var ingestSeconds: Double
        public var rejected: Int
        /// Peak resident memory of this process (VmHWM), in bytes.
        public var peakMemoryBytes: Int

        public var baselineRowsPerSecond: Double { Double(baselineRows) / max(baselineSeconds, 1e-9) }
        public var ingestRowsPerSecond: Double { Double(ingestRows) / max(ingestSeconds, 1e-9) }
        public var ratio: Double { ingestRowsPerSecond / max(baselineRowsPerSecond, 1e-9) }
    }

    /// Writes the sample CSV and the COPY text of its valid rows (the baseline's input) into
    /// `directory`; returns their paths.
    public static func prepare(rows: Int, directory: String) throws -> (csv: String, copyText: String) {
        let csv = directory + "/installs-bench.csv"
        let copyText = directory + "/installs-bench.copy"
        try ReaderBenchmark.writeSampleInstalls(path: csv, rows: rows)
        let reader = try InputFileReader(path: csv, options: ReaderOptions())
        let output = try FileOutput(path: copyText)
        var sink = RowSink()
        while try reader.readBatch(maxRows: 50_000, into: &sink) {
            try sink.withCopyData(for: .installs) { try output.write(Array($0)) }
            sink.reset()
        }
        output.close()
        return (csv, copyText)
    }

    /// Runs both loads against the (fresh, migrated) database of `settings`.
    public static func run(rows: Int, csv: String, copyText: String, settings: ConnectionSettings,
                           logger: Logger) throws -> Result {
        let connection = try settings.connect(logger: logger)
        try connection.execute("""
            create table bench_baseline_installs (like raw_installs including defaults including constraints including indexes);
            alter table bench_baseline_installs alter column file_id set default 0
            """)
        let clock = ContinuousClock()
        var started = clock.now
        let baselineRows = try connection.copyIn("copy bench_baseline_installs (event_id, app_id, user_id, installed_at, network, platform, country, campaign, referrer_user_id, invite_id, adset, creative, device_id) from stdin") { writer in
            let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: copyText))
            defer { try? input.close() }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                try chunk.withUnsafeBytes { try writer.write($0) }
            }
        }
        let baselineSeconds = seconds(clock.now - started)
        try connection.execute("drop table bench_baseline_installs; checkpoint")

        started = clock.now
        let run = IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 1,
                            workerOptions: WorkerOptions(pollSeconds: 0.2, mergePath: .daily))
        let reports = try run.run(files: [csv], stop: StopFlag(), progress: IngestProgress(), logger: logger)
        let ingestSeconds = seconds(clock.now - started)
        guard let report = reports.first, report.status == .loaded else {
            throw PostgresError(code: .client, message: "the benchmark file did not load: \(reports.first?.message ?? "no report")")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: csv)[.size] as? NSNumber)?.int64Value ?? 0
        return Result(rowsGenerated: rows, fileBytes: size, baselineRows: baselineRows, baselineSeconds: baselineSeconds,
                      ingestRows: report.counts.rowsLoaded, ingestSeconds: ingestSeconds, rejected: report.counts.rejected,
                      peakMemoryBytes: peakMemoryBytes())
    }

    /// VmHWM of this process from /proc/self/status (0 where unavailable).
    public static func peakMemoryBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return digits * 1024
        }
        return 0
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
