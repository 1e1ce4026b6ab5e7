import Foundation
import PostgresClient
import Testing
import TestSupport

/// Money in a currency without a rate, end to end through the binary: ingest loads it, compute,
/// status and the reports name it; a currency_rates file and a compute convert it.
@Suite("Money without a rate, through the binary")
struct MoneyCLITests {
    @Test("funnel inputs currency_rates lists its columns from the validator's fields, and the ECB layout")
    func inputsCurrencyRates() throws {
        let help = try FunnelExecutable.run(["inputs", "currency_rates"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("CSV header: date,currency,usd_per_unit"), "\(help.stdout)")
        #expect(help.stdout.contains("usd_per_unit  required  US dollars per unit"), "\(help.stdout)")
        #expect(help.stdout.contains("eurofxref-hist.csv"))
        let purchases = try FunnelExecutable.run(["inputs", "purchases"])
        #expect(purchases.stdout.contains("decimal amount (negative for a refund)"), "\(purchases.stdout)")
    }

    @Test("a CHF purchase without a rate is named by compute, status and the report; a rates file converts it and the notice goes")
    func unconvertedPurchase() throws {
        let settings = try TestCluster.freshDatabase()
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-money")
        let environment = ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""]
        func funnel(_ arguments: [String]) throws -> FunnelExecutable.Outcome {
            try FunnelExecutable.run(arguments, environment: environment, currentDirectory: folder)
        }
        func write(_ name: String, _ text: String) throws -> String {
            let url = folder.appending(path: name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let installs = try write("installs.csv", "event_id,app_id,user_id,installed_at,network\n"
            + "i1,app,u1,2024-05-01T10:00:00Z,meta\ni2,app,u2,2024-05-01T10:00:00Z,meta\n")
        let purchases = try write("purchases.csv", "event_id,app_id,user_id,purchased_at,revenue,currency\n"
            + "p1,app,u1,2024-05-01T12:00:00Z,10,USD\np2,app,u1,2024-05-02T12:00:00Z,100,CHF\n"
            + "p3,app,u2,2024-05-03T12:00:00Z,200,CHF\np4,app,u1,2024-05-03T13:00:00Z,-4,USD\n")
        #expect(try funnel(["ingest", installs, purchases, "-q"]).status == 0)
        let compute = try funnel(["compute"])
        #expect(compute.status == 0)
        let notice = "CHF: 2 purchases, CHF 300.00 not converted (no rate on or before 2024-05-03): left out of revenue, LTV and ROAS"
        #expect(compute.stdout.contains("warning: app: " + notice), "\(compute.stdout)")
        #expect(try funnel(["status"]).stdout.contains("not converted to USD: " + notice))
        let report = try funnel(["report", "--app", "app"])
        // The text report wraps its notes: compare the words.
        let words = report.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Not converted to USD: " + notice), "\(report.stdout)")
        // Gross 10 USD, a 4 USD refund, net 6 (CHF counts 0): the revenue table's 'all' line.
        #expect(report.stdout.contains("REVENUE (days 0 to max_day"))
        let json = try funnel(["report", "--app", "app", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let unconverted = try #require((document["scope"] as? [String: Any])?["unconverted"] as? [[String: Any]])
        #expect(unconverted.count == 1)
        #expect(unconverted.first?["currency"] as? String == "CHF")
        #expect(unconverted.first?["rows"] as? Int == 2)
        let all = try #require((document["networks"] as? [[String: Any]])?.first { $0["network"] as? String == "all" })
        #expect((all["gross_revenue"] as? NSNumber)?.doubleValue == 10)
        #expect((all["refunded"] as? NSNumber)?.doubleValue == 4)
        #expect((all["net_revenue"] as? NSNumber)?.doubleValue == 6)
        #expect(all["refunds"] as? Int == 1)

        // 1.10 from 05-01, 1.20 from 05-03: 100 x 1.10 + 200 x 1.20 = 350 USD more.
        let rates = try write("currency_rates.csv", "date,currency,usd_per_unit\n2024-05-01,CHF,1.10\n2024-05-03,CHF,1.20\n")
        #expect(try funnel(["ingest", rates, "-q"]).status == 0)
        let again = try funnel(["compute"])
        #expect(again.status == 0)
        #expect(!again.stdout.contains("not converted"), "\(again.stdout)")
        #expect(!(try funnel(["status"]).stdout.contains("not converted")))
        let after = try funnel(["report", "--app", "app", "--format", "json"])
        let converted = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect(((converted["scope"] as? [String: Any])?["unconverted"] as? [Any])?.isEmpty == true)
        let net = try #require((converted["networks"] as? [[String: Any]])?.first { $0["network"] as? String == "all" })
        #expect((net["net_revenue"] as? NSNumber)?.doubleValue == 356)
    }
}
