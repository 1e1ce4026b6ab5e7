import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("funnel bench daily", .serialized)
struct BenchDailyTests {
    @Test("a small run prints the history, each part of the daily run and its total, and drops its scratch database")
    func smallRun() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "daily", "--users", "300", "--days", "5", "--no-duckdb"],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        for line in ["split at 2024-05-05", "history (untimed", "(then a checkpoint: what autovacuum and the checkpointer do",
                     "daily run (timed): the last day 2024-05-05",
                     "  ingest:", "  compute:", "  report:", "  total:", "DuckDB baseline: skipped (--no-duckdb)",
                     "users (cohort members)", "friction: episodes", "friction: first-ranked"] {
            #expect(out.contains(line), "\(line) in:\n\(out)")
        }
        #expect(out.range(of: #"report: +[0-9.]+ s +\(21 files"#, options: .regularExpression) != nil, "every report format written")
        // The test cluster runs here, so the server's processor time is read too.
        let cpu = try #require(out.firstMatch(of: /cpu: +([0-9.]+) s +\(server ([0-9.]+) s \+ funnel ([0-9.]+) s: ([0-9.]+) of ([0-9]+) cores busy/),
                               "a cpu line with the server's share in:\n\(out)")
        let (total, server, own) = (Double(cpu.1) ?? 0, Double(cpu.2) ?? 0, Double(cpu.3) ?? 0)
        #expect(server > 0 && own > 0)
        #expect(abs(total - server - own) <= 0.011, "the total is the server's plus ours")
        #expect((Double(cpu.5) ?? 0) == Double(ProcessInfo.processInfo.activeProcessorCount))
        let parts = out.matches(of: /([0-9.]+) s of processor time\)/).compactMap { Double($0.1) }
        #expect(parts.count == 3, "ingest, compute and report each with their processor time in:\n\(out)")
        #expect(abs(parts.reduce(0, +) - total) <= 0.031, "the parts add up to the run's processor time: \(parts) against \(total)")
        let admin = try settings.connect()
        #expect(try admin.query("select count(*) from pg_database where datname like 'funnel_bench_daily_%'").scalar(Int.self) == 0)
    }

    @Test("the baseline's queries are split into metrics and friction, and figures that differ are named")
    func baselineSplitAndDisagreement() throws {
        let settings = try TestCluster.freshDatabase()
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-fake-duckdb")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A stand-in for a Python with duckdb: it passes the import check and prints a baseline
        // whose user count cannot be funnel's and whose other figures are missing.
        let python = directory.appending(path: "python")
        try """
            #!/bin/sh
            [ "$1" = -c ] && exit 0
            echo '{"duckdb_version": "test", "threads": 2, "load_seconds": 1.5, "query_seconds": 2.5,
                   "metrics_query_seconds": 1.0, "friction_query_seconds": 1.5, "total_seconds": 4.0,
                   "rows_loaded": 10, "headline": {"users": -1}}'
            """.write(to: python, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: python.path)
        let outcome = try FunnelExecutable.run(["bench", "daily", "--users", "200", "--days", "3", "--duckdb-runs", "1",
                                                "--duckdb-python", python.path],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("load 10 rows 1.50 s + queries 2.50 s = 4.00 s"), "\(out)")
        // The history's full compute (friction beside the metrics) set against DuckDB's queries.
        let full = try #require(out.firstMatch(of: /compute --full: +([0-9.]+) s +\(full, .*metrics [0-9.]+ s beside friction [0-9.]+ s; [0-9.]+ s of processor time/),
                                "the history's full compute with its processor time in:\n\(out)")
        let ratio = try #require(out.firstMatch(of: /full compute of the history ([0-9.]+) s vs DuckDB's queries from scratch 2.50 s = ([0-9.]+)x/),
                                 "\(out)")
        #expect(ratio.1 == full.1, "the same full compute in both lines")
        #expect(abs((Double(ratio.2) ?? 0) - (Double(ratio.1) ?? 0) / 2.5) <= 0.01, "the ratio is funnel's time over DuckDB's queries")
        #expect(out.contains("DuckDB's queries: metrics 1.00 s, onboarding friction 1.50 s; without friction DuckDB takes 2.50 s"),
                "\(out)")
        let differing = try #require(out.firstMatch(of: /warning: funnel and DuckDB differ on: (.*)/), "\(out)")
        #expect(differing.1.hasPrefix("users (cohort members)"), "\(differing.1)")
        #expect(differing.1.contains("friction: episodes"), "\(differing.1)")
        #expect(!out.contains("every figure agrees"))
    }

    /// The Python `make bench-deps` sets up (`make test` tries it first), when it has the duckdb
    /// module; without it the cross-check below cannot run.
    static let duckDBPython: String? = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = repository.appending(path: ".venv-bench/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import duckdb"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? python : nil
    }()

    @Test("on generated data every headline figure, friction's included, equals DuckDB's computed from scratch",
          .enabled(if: BenchDailyTests.duckDBPython != nil, "needs the DuckDB baseline's Python: make bench-deps"))
    func agreesWithDuckDB() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "daily", "--users", "2000", "--days", "40", "--seed", "7",
                                                "--duckdb-runs", "1", "--duckdb-python", try #require(Self.duckDBPython)],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("every figure agrees"), "\(out)")
        // Figures that are there on both sides, so "agrees" is not two dashes.
        for label in ["k-factor, all", "friction: episodes", "friction: its users hit"] {
            let line = try #require(out.split(separator: "\n").first { $0.contains(label) }, "\(label) in:\n\(out)")
            #expect(!line.contains("funnel -"), "\(line)")
        }
        #expect(out.contains(/friction: first-ranked +funnel permissions \/ permission_denied_no_guidance DuckDB permissions/),
                "the planted permission friction ranks first on both sides:\n\(out)")
    }

    @Test("the DuckDB baseline must run at least once")
    func duckDBRunsValidated() throws {
        let outcome = try FunnelExecutable.run(["bench", "daily", "--duckdb-runs", "0"])
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("--duckdb-runs must be at least 1"), "\(outcome.stderr)")
    }

    @Test("without a Python that has duckdb it says how to get one and still succeeds")
    func missingDuckDB() throws {
        let settings = try TestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["bench", "daily", "--users", "100", "--days", "2",
                                                "--duckdb-python", "/nonexistent/python"],
                                               environment: ["DATABASE_URL": settings.conninfo])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("make bench-deps"), "\(outcome.stdout)")
    }
}
