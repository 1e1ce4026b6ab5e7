import Foundation
import FunnelBench
import FunnelIngest
import IngestFixtures
import Testing

/// Parse-only throughput, run by hand: `FUNNEL_READER_BENCH_ROWS=1000000 swift test -c release
/// -Xswiftc -enable-testing --filter ReaderBenchmarkTests`.
@Suite("Reader benchmark")
struct ReaderBenchmarkTests {
    @Test("parse-only throughput on a generated installs file",
          .enabled(if: ProcessInfo.processInfo.environment["FUNNEL_READER_BENCH_ROWS"] != nil),
          arguments: [InputFormat.csv, .ndjson])
    func throughput(format: InputFormat) throws {
        let rows = Int(ProcessInfo.processInfo.environment["FUNNEL_READER_BENCH_ROWS"] ?? "") ?? 1_000_000
        let scratch = try Scratch()
        let path = scratch.directory.appendingPathComponent("installs-bench.\(format.rawValue)").path
        try ReaderBenchmark.writeSampleInstalls(path: path, rows: rows, format: format)
        let options = ReaderOptions(now: Date(timeIntervalSince1970: 1_720_000_000))
        var best: ReaderBenchmark.Result?
        for _ in 0..<3 {
            let result = try ReaderBenchmark.run(path: path, options: options)
            if best == nil || result.seconds < best!.seconds { best = result }
        }
        let result = try #require(best)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("reader benchmark (\(format.rawValue)): \(result.rows) rows (\(result.rejected) rejected), \(size) bytes in "
            + "\(String(format: "%.3f", result.seconds)) s = \(Int(result.rowsPerSecond)) rows/s, "
            + "\(String(format: "%.2f", result.seconds * 1e6 / Double(max(result.rows, 1)))) µs/row")
        #expect(result.rows == rows)
    }
}
