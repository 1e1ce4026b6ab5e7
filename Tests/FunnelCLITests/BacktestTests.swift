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
        let csv = try FunnelExecutable.run(["backtest", "ltv", "--cutoff", "2024-05-21", "--horizon", "D40", "--format", "csv"],
                                           environment: environment)
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "app,network,method,cutoff,history_days,horizon,projected,observed,error,chosen")
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let all = rows.filter { $0[1] == "all" }
        #expect(Set(all.map { $0[2] }) == ["power law", "development factors", "linear tail", "per-user BG/NBD"])
        // Data through 2024-06-29 (60 days from 05-01): a cutoff on 05-21 leaves the oldest cohort 20 days.
        #expect(all.allSatisfy { $0[3] == "2024-05-21" && $0[4] == "20" && $0[5] == "40" })
        #expect(rows.filter { $0[9] == "true" }.map { $0[2] }.count >= 1, "compute's chosen method is marked")
        // The observed LTV D40 is the report's observed LTV on day 40 for 'all'.
        let report = try FunnelExecutable.run(["report", "--format", "json"], environment: environment)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let curve = try #require(document["ltv"] as? [[String: Any]])
        let day40 = try #require(curve.first { $0["network"] as? String == "all" && $0["day"] as? Int == 40
                                               && $0["projected"] as? Bool == false })
        let observed = try #require(Double(all[0][7]))
        #expect(abs(observed - (day40["ltv"] as? Double ?? -1)) < 0.0001)
        for row in all where !row[6].isEmpty {
            let projected = try #require(Double(row[6]))
            #expect(abs(try #require(Double(row[8])) - (projected / observed - 1)) < 0.001)
        }
        // The report names the method and its back-test.
        let models = try #require(document["ltv_models"] as? [[String: Any]])
        #expect(models.contains { $0["network"] as? String == "all" && $0["method"] is String })
        let text = try FunnelExecutable.run(["backtest", "ltv", "--cutoff", "2024-05-21", "--horizon", "40"], environment: environment)
        #expect(text.status == 0)
        #expect(text.stdout.contains("LTV D40 of com.example.app projected from the history up to 2024-05-21 (21 days)"))
        let json = try FunnelExecutable.run(["backtest", "ltv", "--format", "json"], environment: environment)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(parsed.contains { $0["method"] as? String == "development factors" && $0["history_days"] as? Int == 29 })
        let early = try FunnelExecutable.run(["backtest", "ltv", "--cutoff", "2023-01-01"], environment: environment)
        #expect(early.status == 1 && early.stderr.contains("--cutoff 2023-01-01 is outside"), "\(early.stderr)")
        let badHorizon = try FunnelExecutable.run(["backtest", "ltv", "--horizon", "forever"], environment: environment)
        #expect(badHorizon.status == 2 && badHorizon.stderr.contains("--horizon expects a day such as D180"))
    }
}
