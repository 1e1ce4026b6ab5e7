import Foundation
import PostgresClient
import Testing
import TestSupport

/// `funnel plan` as a user runs it: generated files (3,000 users over 30 days), ingested and
/// computed by the binary, then planned.
@Suite("funnel plan")
struct PlanCommandTests {
    @Test("plan --budget spends the budget within the bounds in text, CSV and JSON; --target-roas and bad flags")
    func planEndToEnd() throws {
        let settings = try TestCluster.freshDatabase()
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-plan")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""]
        func funnel(_ arguments: [String]) throws -> FunnelExecutable.Outcome {
            try FunnelExecutable.run(arguments, environment: environment, currentDirectory: folder)
        }
        let data = folder.appending(path: "data").path
        for step in [["generate", "--out", data, "--users", "3000", "--days", "30", "--seed", "7"], ["ingest", data], ["compute"]] {
            let outcome = try funnel(step)
            #expect(outcome.status == 0, "\(step): \(outcome.stderr)")
        }
        let text = try funnel(["plan", "--budget", "500"])
        #expect(text.status == 0, "\(text.stderr)")
        print(text.stdout)
        #expect(text.stdout.contains("PLAN for "))
        #expect(text.stdout.contains("$500.00 a day, maximising projected D180 revenue"))

        let json = try funnel(["plan", "--budget", "500", "--format", "json", "--max", "adnova=50"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let networks = try #require(object["networks"] as? [[String: Any]])
        let planned = networks.compactMap { $0["planned_spend"] as? Double }
        #expect(abs(planned.reduce(0, +) - 500) < 0.05, "\(planned)")
        let adnova = try #require(networks.first { $0["network"] as? String == "adnova" })
        #expect((adnova["planned_spend"] as? Double ?? 99) <= 50.005)

        let csv = try funnel(["plan", "--budget", "500", "--format", "csv", "--max-change", "20%"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first?.prefix(4) == ["network", "horizon_day", "today_spend", "planned_spend"])
        for row in rows.dropFirst() where row[0] != "all" {
            let today = try #require(Double(row[2])), spend = try #require(Double(row[3]))
            #expect(spend <= today * 1.2 + 0.01 && spend >= today * 0.8 - 0.01, "\(row)")
        }

        let target = try funnel(["plan", "--target-roas", "1", "--format", "json"])
        #expect(target.status == 0, "\(target.stderr)")
        #expect(target.stdout.contains("\"target_roas\" : 1"))

        let unknown = try funnel(["plan", "--budget", "500", "--min", "nosuch=10"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--min nosuch: not a paid network of"), "\(unknown.stderr)")
        let neither = try funnel(["plan"])
        #expect(neither.status == 2)
        #expect(neither.stderr.contains("--budget AMOUNT (USD a day) or --target-roas R"), "\(neither.stderr)")
        let horizon = try funnel(["plan", "--budget", "500", "--horizon", "D1000"])
        #expect(horizon.status != 0)
        #expect(horizon.stderr.contains("--horizon D90, D180 or D365"), "\(horizon.stderr)")

        // Per campaign: every campaign with spend is a line named network/campaign, the budget is
        // spent, and --max names a campaign.
        let campaigns = try funnel(["plan", "--budget", "500", "--by", "campaign", "--format", "json",
                                    "--max", "adnova/adnova_summer=20"])
        #expect(campaigns.status == 0, "\(campaigns.stderr)")
        let campaignObject = try #require(try JSONSerialization.jsonObject(with: Data(campaigns.stdout.utf8)) as? [String: Any])
        let lines = try #require(campaignObject["networks"] as? [[String: Any]])
        let names = lines.compactMap { $0["network"] as? String }
        #expect(names.count >= 8 && names.allSatisfy { $0.contains("/") }, "\(names)")
        #expect(abs(lines.compactMap { $0["planned_spend"] as? Double }.reduce(0, +) - 500) < 0.05)
        let summer = try #require(lines.first { $0["network"] as? String == "adnova/adnova_summer" })
        #expect((summer["planned_spend"] as? Double ?? 99) <= 20.005)
        let campaignText = try funnel(["plan", "--budget", "500", "--by", "campaign"])
        #expect(campaignText.status == 0 && campaignText.stdout.contains("network/campaign"), "\(campaignText.stderr)")
        let badBy = try funnel(["plan", "--budget", "500", "--by", "country"])
        #expect(badBy.status == 2)
        #expect(badBy.stderr.contains("only --by campaign"), "\(badBy.stderr)")
        let badCampaign = try funnel(["plan", "--budget", "500", "--by", "campaign", "--min", "adnova=10"])
        #expect(badCampaign.status == 2)
        #expect(badCampaign.stderr.contains("not a campaign with spend"), "\(badCampaign.stderr)")
    }
}
