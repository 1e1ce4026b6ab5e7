import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("funnel bench ingest", .serialized)
struct BenchIngestTests {
    @Test("a small run prints the history beside COPY's limit in two runs with their median, the daily path beside plain COPY, and drops its databases")
    func smallRun() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "ingest", "--history-users", "300", "--history-days", "10",
                                                "--history-runs", "2", "--events", "2000", "--no-duckdb"],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        let limit = try #require(out.firstMatch(of: /limit \(COPY FROM STDIN.*\): [0-9.]+ s = ([0-9]+) rows\/s/), "\(out)")
        let history = try #require(out.firstMatch(of: /funnel ingest \(2 workers.*\): ([0-9]+) rows read, ([0-9]+) stored in [0-9.]+ s = ([0-9]+) rows\/s/), "\(out)")
        let files = try #require(out.firstMatch(of: /files: 15, [0-9]+ MB CSV, ([0-9]+) rows/), "\(out)")
        #expect(Int(history.1) == Int(files.1), "every row of the files read")
        #expect((Int(history.2) ?? 0) > 0 && (Int(history.2) ?? 0) < (Int(history.1) ?? 0), "duplicates not stored")
        #expect((Int(limit.1) ?? 0) > 0)
        let ratios = out.matches(of: /ratio to the limit: ([0-9.]+) \(target/).compactMap { Double($0.1) }
        #expect(ratios.count == 2, "one ratio per run: \(out)")
        #expect(out.contains("run 1 of 2:") && out.contains("run 2 of 2:"))
        let summary = try #require(out.firstMatch(of: /run by run \(each import right after its limit\): ([0-9.]+), ([0-9.]+); median ([0-9.]+)/), "\(out)")
        #expect([Double(summary.1), Double(summary.2)] == ratios.map { Optional($0) })
        #expect(abs((Double(summary.3) ?? 0) - (ratios[0] + ratios[1]) / 2) <= 0.011, "the median of two runs is their mean")
        #expect(out.contains("funnel ingest, daily merge"))
        #expect(out.contains("baseline (COPY FROM STDIN into raw_installs' twin"))
        // The ingest bench's scratch databases are funnel_bench_<pid>_<part>; the other benches'
        // (funnel_bench_daily_..., _compute_, _query_) may exist meanwhile: other tests run them.
        let admin = try settings.connect()
        #expect(try admin.query("select count(*) from pg_database where datname ~ '^funnel_bench_[0-9]+_'").scalar(Int.self) == 0)
    }

    @Test("--vendor-rows imports an AppsFlyer export beside the same rows as funnel NDJSON, every row stored by both, with the ratio")
    func vendorRun() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "ingest", "--no-history", "--no-daily", "--vendor-rows", "3000"],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        let plain = try #require(out.firstMatch(of: /same rows as funnel NDJSON: ([0-9]+) stored in [0-9.]+ s = ([0-9]+) rows\/s/), "\(out)")
        let vendor = try #require(out.firstMatch(of: /--source appsflyer of the export: ([0-9]+) stored in [0-9.]+ s = ([0-9]+) rows\/s/), "\(out)")
        #expect(Int(plain.1) == 3000 && Int(vendor.1) == 3000)
        let ratio = try #require(out.firstMatch(of: /ratio: ([0-9.]+) \(target >= 0.80\)/), "\(out)")
        let expected = (Double(vendor.2) ?? 0) / max(Double(plain.2) ?? 1, 1)
        #expect(abs((Double(ratio.1) ?? 0) - expected) < 0.02)
        let admin = try settings.connect()
        #expect(try admin.query("select count(*) from pg_database where datname ~ '^funnel_bench_[0-9]+_'").scalar(Int.self) == 0)
    }
    @Test("--vendor firebase and amplitude import generated exports beside their funnel NDJSON, every row stored by both", arguments: ["firebase", "amplitude"])
    func ndjsonVendorRun(vendorName: String) throws {
        let settings = try TestCluster.freshDatabase()
        let rows = "3000"
        let outcome = try FunnelExecutable.run(["bench", "ingest", "--no-history", "--no-daily", "--vendor-rows", rows, "--vendor", vendorName],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        let plain = try #require(out.firstMatch(of: /same rows as funnel NDJSON: ([0-9]+) stored/), "\(out)")
        let vendor = try #require(out.firstMatch(of: /--source ([a-z]+) of the export: ([0-9]+) stored/), "\(out)")
        #expect(plain.1 == rows && vendor.1 == vendorName && vendor.2 == rows, "\(out)")
    }
}
