import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("funnel bench query", .serialized)
struct BenchQueryTests {
    @Test("on generated events every figure of the funnel equals DuckDB's, the funnel without exclusion and the retention ClickHouse's, and the scratch database is dropped",
          .enabled(if: BenchDailyTests.duckDBPython != nil, "needs the DuckDB baseline's Python: make bench-deps"))
    func agreesWithDuckDB() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "query", "--events", "20000", "--seed", "3", "--runs", "1",
                                                "--duckdb-python", try #require(BenchDailyTests.duckDBPython)],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("every figure agrees"), "\(out)")
        #expect(out.contains(/funnel [0-9.]+ s vs DuckDB [0-9.]+ s: ratio [0-9.]+/), "\(out)")
        #expect(out.contains(/trends: funnel [0-9.]+ s vs DuckDB [0-9.]+ s/), "\(out)")
        let trendDays = out.matches(of: /trends: ([0-9]+) days compared/).compactMap { Int($0.1) }
        #expect(!trendDays.isEmpty && trendDays.allSatisfy { $0 > 30 }, "\(out)")
        // Figures on both sides, not zeros: every platform and users without one, steps to the last, exclusions.
        for value in ["ios", "android", "web", "(none)"] { #expect(out.contains("platform \(value):"), "\(value) in:\n\(out)") }
        let last = out.matches(of: /step 5 onboarding_completed +funnel ([0-9]+) +DuckDB ([0-9]+)/)
        #expect(last.count == 4 && last.allSatisfy { Int($0.1) ?? 0 > 0 && $0.1 == $0.2 }, "\(out)")
        let excluded = out.matches(of: /excluded +funnel ([0-9]+) +DuckDB ([0-9]+)/).map { Int($0.1) ?? 0 }
        #expect(excluded.reduce(0, +) > 0, "some users excluded:\n\(out)")
        let admin = try settings.connect()
        #expect(try admin.query("select count(*) from pg_database where datname like 'funnel_bench_query_%'").scalar(Int.self) == 0)
        // ClickHouse's side, when the venv has chdb: the funnel without exclusion and the retention agree too.
        if Self.hasChdb {
            #expect(out.contains(/funnel without exclusion: funnel [0-9.]+ s vs ClickHouse [0-9.]+ s: ratio [0-9.]+/), "\(out)")
            #expect(out.contains(/retention D1\/D7: funnel [0-9.]+ s vs ClickHouse [0-9.]+ s/), "\(out)")
            #expect(out.contains(/trends: funnel [0-9.]+ s vs ClickHouse [0-9.]+ s/), "\(out)")
            #expect(out.contains(/storage per event: funnel [0-9.]+ bytes .* vs ClickHouse [0-9.]+ bytes/), "\(out)")
            let cohorts = out.firstMatch(of: /retention: ([0-9]+) cohorts compared/).flatMap { Int($0.1) } ?? 0
            #expect(cohorts > 30, "\(out)")
            let last = out.matches(of: /step 5 onboarding_completed +funnel ([0-9]+) +ClickHouse ([0-9]+)/)
            #expect(last.count == 4 && last.allSatisfy { Int($0.1) ?? 0 > 0 && $0.1 == $0.2 }, "\(out)")
        } else {
            #expect(out.contains("ClickHouse: skipped"), "\(out)")
        }
    }

    static var hasChdb: Bool {
        guard let python = BenchDailyTests.duckDBPython else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import chdb"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("figures that differ from the baseline's are named by value and step, and the run fails")
    func disagreementFails() throws {
        let settings = try TestCluster.freshDatabase()
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-fake-duckdb")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A stand-in for a Python with duckdb: it passes the import check and answers a funnel
        // funnel cannot have (one ios user at every step, a value no user has).
        let python = directory.appending(path: "python")
        try """
            #!/bin/sh
            [ "$1" = -c ] && exit 0
            echo '{"duckdb_version": "test", "threads": 2, "load_seconds": 0.5, "query_seconds": 2.0, "rows_loaded": 3000,
                   "series": [{"value": "ios", "steps": [1, 1, 1, 1, 1], "excluded": 0},
                              {"value": "palm", "steps": [2, 0, 0, 0, 0], "excluded": 0}]}'
            """.write(to: python, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: python.path)
        let outcome = try FunnelExecutable.run(["bench", "query", "--events", "3000", "--runs", "1", "--duckdb-python", python.path,
                                                "--no-clickhouse"],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status != 0)
        #expect(outcome.stdout.contains("query, the fastest of 1: 2.00 s"), "\(outcome.stdout)")
        #expect(outcome.stderr.contains("funnel and its peers differ on: DuckDB: (ios, step 1)"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("(palm, step 1)"), "\(outcome.stderr)")
        #expect(!outcome.stdout.contains("every figure agrees"))
    }

    @Test("the same seed writes the same events")
    func deterministic() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-bench-query")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = try TestCluster.freshDatabase()
        var files: [Data] = []
        for run in 0..<2 {
            let keep = directory.appending(path: "run\(run)")
            let outcome = try FunnelExecutable.run(["bench", "query", "--events", "2000", "--seed", "5", "--runs", "1",
                                                    "--no-duckdb", "--keep", keep.path],
                                                   environment: ["DATABASE_URL": settings.conninfo])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("DuckDB baseline: skipped (--no-duckdb)"), "\(outcome.stdout)")
            files.append(try Data(contentsOf: keep.appending(path: "events.csv")))
            let name = try #require(outcome.stdout.firstMatch(of: /database (funnel_bench_query_[0-9]+)/)).1
            _ = try settings.connect().execute("drop database \(name) with (force)")
        }
        #expect(files[0] == files[1] && files[0].count > 100_000)
    }
}
