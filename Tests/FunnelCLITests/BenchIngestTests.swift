import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("funnel bench ingest", .serialized)
struct BenchIngestTests {
    @Test("a small run prints the history beside COPY's limit and the daily path beside plain COPY, and drops its databases")
    func smallRun() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "ingest", "--history-users", "300", "--history-days", "10",
                                                "--events", "2000", "--no-duckdb"],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        let limit = try #require(out.firstMatch(of: /limit \(COPY FROM STDIN.*\): [0-9.]+ s = ([0-9]+) rows\/s/), "\(out)")
        let history = try #require(out.firstMatch(of: /funnel ingest \(2 workers.*\): ([0-9]+) rows read, ([0-9]+) stored in [0-9.]+ s = ([0-9]+) rows\/s/), "\(out)")
        let files = try #require(out.firstMatch(of: /files: 15, [0-9]+ MB CSV, ([0-9]+) rows/), "\(out)")
        #expect(Int(history.1) == Int(files.1), "every row of the files read")
        #expect((Int(history.2) ?? 0) > 0 && (Int(history.2) ?? 0) < (Int(history.1) ?? 0), "duplicates not stored")
        #expect((Int(limit.1) ?? 0) > 0)
        #expect(out.contains("ratio to the limit:"))
        #expect(out.contains("funnel ingest, daily merge"))
        #expect(out.contains("baseline (COPY FROM STDIN into raw_installs' twin"))
        // The ingest bench's scratch databases are funnel_bench_<pid>_<part>; the other benches'
        // (funnel_bench_daily_..., _compute_, _query_) may exist meanwhile: other tests run them.
        let admin = try settings.connect()
        #expect(try admin.query("select count(*) from pg_database where datname ~ '^funnel_bench_[0-9]+_'").scalar(Int.self) == 0)
    }
}
