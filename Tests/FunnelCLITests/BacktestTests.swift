import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("funnel backtest ltv", .serialized)
struct BacktestTests {
    /// 2,000 generated users over 60 days, computed: `backtest ltv` holds out the days after the
    /// cutoff and compares each method's projection with the LTV observed at the horizon, which
    /// must be the report's own observed LTV on that day.
    @Test("every method projected from the cutoff beside the observed LTV, in text, CSV and JSON; bad flags named")
    func backtestLTV() throws {
        let settings = try TestCluster.freshDatabase()
        let environment = ["DATABASE_URL": settings.conninfo]
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-backtest")
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["generate", "--out", directory.path, "--users", "2000", "--days", "60"], ["migrate"],
                          ["ingest", directory.path, "-q"], ["compute", "-q"]] {
            let outcome = try FunnelExecutable.run(arguments, environment: environment)
            #expect(outcome.status == 0, "\(arguments[0]): \(outcome.stderr)")
        }
        let csv = try FunnelExecutable.run(["backtest", "ltv", "--cutoff", "2024-05-19", "--horizon", "D40", "--format", "csv"],
                                           environment: environment)
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "app,network,method,cutoff,history_days,horizon,projected,observed,error,chosen")
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let all = rows.filter { $0[1] == "all" }
        #expect(Set(all.map { $0[2] }) == ["power law", "development factors", "linear tail", "per-user BG/NBD", "ensemble"])
        // Data through 2024-06-29 (60 days from 05-01): a cutoff on 05-19 leaves the oldest cohort 18 days
        // old, and the youngest kept (installed on 05-19) is 41 days old on 06-29: mature for D40.
        #expect(all.allSatisfy { $0[3] == "2024-05-19" && $0[4] == "18" && $0[5] == "40" })
        #expect(rows.filter { $0[9] == "true" }.map { $0[2] }.count >= 1, "compute's chosen method is marked")
        // The observed LTV D40 is the LTV on day 40 of the cohorts installed up to the cutoff only
        // (from the rollups), not the report's curve, which pools the later cohorts too.
        let connection = try settings.connect()
        let expected = try connection.query("""
            select (select sum(revenue_usd) from int_network_day_rollup where cohort_date <= '2024-05-19' and day_n <= 40)
                   / (select sum(installs) from int_cohort_rollup where cohort_date <= '2024-05-19')::numeric
            """).scalar(Double.self)
        let observed = try #require(Double(all[0][7]))
        #expect(abs(observed - expected) < 0.0001)
        let report = try FunnelExecutable.run(["report", "--format", "json"], environment: environment)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let curve = try #require(document["ltv"] as? [[String: Any]])
        let day40 = try #require(curve.first { $0["network"] as? String == "all" && $0["day"] as? Int == 40
                                               && $0["projected"] as? Bool == false })
        #expect(abs(observed - (day40["ltv"] as? Double ?? -1)) > 0.0001, "the later cohorts are not pooled")
        for row in all where !row[6].isEmpty {
            let projected = try #require(Double(row[6]))
            #expect(abs(try #require(Double(row[8])) - (projected / observed - 1)) < 0.001)
        }
        // The report names the method and its back-test.
        let models = try #require(document["ltv_models"] as? [[String: Any]])
        #expect(models.contains { $0["network"] as? String == "all" && $0["method"] is String })
        let text = try FunnelExecutable.run(["backtest", "ltv", "--cutoff", "2024-05-19", "--horizon", "40"], environment: environment)
        #expect(text.status == 0)
        #expect(text.stdout.contains("LTV D40 of com.example.app projected from the history up to 2024-05-19 (19 days)"))
        let json = try FunnelExecutable.run(["backtest", "ltv", "--format", "json"], environment: environment)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(parsed.contains { $0["method"] as? String == "development factors" && $0["history_days"] as? Int == 29 })
        let early = try FunnelExecutable.run(["backtest", "ltv", "--cutoff", "2023-01-01"], environment: environment)
        #expect(early.status == 1 && early.stderr.contains("--cutoff 2023-01-01 is outside"), "\(early.stderr)")
        // The cohort's age, not its capped rows: 59 days old on 2024-06-29 whatever max_day.
        #expect(early.stderr.contains("installed on 2024-05-01, is 59 days old on 2024-06-29"), "\(early.stderr)")
        // --app: only that app; an unknown one is named with the known ones.
        let one = try FunnelExecutable.run(["backtest", "ltv", "--app", "com.example.app", "--cutoff", "2024-05-19", "--horizon", "D40",
                                            "--format", "csv"], environment: environment)
        #expect(one.status == 0 && one.stdout == csv.stdout)
        let unknown = try FunnelExecutable.run(["backtest", "ltv", "--app", "no.such.app"], environment: environment)
        #expect(unknown.status == 1 && unknown.stderr.contains("no computed app no.such.app: pick one of com.example.app with --app"),
                "\(unknown.stderr)")
        // Without --cutoff, the latest cutoff that leaves every kept cohort mature for the horizon:
        // 59 − 40 = day 19, so every method is compared with an observed value.
        let fitting = try FunnelExecutable.run(["backtest", "ltv", "--horizon", "D40", "--format", "csv"], environment: environment)
        let fittingRows = fitting.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(fittingRows.filter { $0[1] == "all" }.allSatisfy { $0[4] == "19" && !$0[7].isEmpty })
        let badHorizon = try FunnelExecutable.run(["backtest", "ltv", "--horizon", "forever"], environment: environment)
        #expect(badHorizon.status == 2 && badHorizon.stderr.contains("--horizon expects a day such as D180"))
    }
}
