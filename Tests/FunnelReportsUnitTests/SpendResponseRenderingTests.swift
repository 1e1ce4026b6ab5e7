import Foundation
@testable import FunnelReports
import Testing

@Suite("Spend response in the reports")
struct SpendResponseRenderingTests {
    /// adnova: b = 0.5, a = 2, $100 a day, headroom $400 (the example of docs/metrics.md);
    /// shorty: no curve.
    static func sample() -> Report {
        var report = RenderingTests.sample()
        report.spendResponse = SpendResponseSection(
            networks: [
                SpendResponseRow(network: "adnova", status: "fitted", days: 30, exponentB: 0.5, exponentBLow: 0.45,
                                 exponentBHigh: 0.55, scaleA: 2, rSquared: 0.97, currentSpend: 100, averageCpi: 5,
                                 marginalCpi: 10, ltvD180: 20, headroomSpend: 400, maxSpend: 180, saturated: true,
                                 inflatedDays: 1,
                                 advice: "saturated, marginal CPI $10.00 vs average $5.00; raise spend from $100.00 to about $400.00 a day, where the marginal CPI meets the projected D180 LTV $20.00"),
                SpendResponseRow(network: "shorty", status: "not enough spend history", days: 9, exponentB: nil,
                                 exponentBLow: nil, exponentBHigh: nil, scaleA: nil, rSquared: nil, currentSpend: nil,
                                 averageCpi: nil, marginalCpi: nil, ltvD180: nil, headroomSpend: nil, maxSpend: nil,
                                 saturated: nil, inflatedDays: 0,
                                 advice: "not enough spend history: 9 days with spend and installs (needs 14)"),
            ],
            inflatedDays: [InflatedDayRow(network: "adnova", date: "2024-06-10", spend: 250, paidInstalls: 20, cpi: 12.5,
                                          expectedCpi: 5, robustZ: 8.2, excessCost: 150)])
        return report
    }

    @Test("text: the table, the advice beside each network and the inflated days")
    func text() {
        let text = TextRenderer.render(Self.sample())
        #expect(text.contains("SPEND RESPONSE"))
        #expect(text.contains("adnova: saturated, marginal CPI $10.00 vs average $5.00; raise spend from $100.00 to about"))
        #expect(text.contains("shorty: not enough spend history: 9 days"))
        #expect(text.contains("SATURATED"))
        #expect(text.contains("2024-06-10"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= TextRenderer.width })
        // WHAT TO DO carries the curve's advice beside the verdict of a network that has a curve.
        let summary = text.components(separatedBy: "WHAT TO DO")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(summary.contains("Spend curve: saturated, marginal CPI $10.00 vs average $5.00; raise spend from $100.00 to about $400.00 a day"))
        #expect(HTMLRenderer.render(Self.sample()).contains("Spend curve: saturated, marginal CPI $10.00"))
    }

    @Test("CSV: spend_response.csv and cpi_inflated_days.csv with empty cells where there is no curve")
    func csv() throws {
        let files = Dictionary(uniqueKeysWithValues: CSVRenderer.render(Self.sample()).map { ($0.name, $0.contents) })
        let response = try #require(files["spend_response.csv"]).components(separatedBy: "\r\n")
        #expect(response[0] == "network,status,days,exponent_b,exponent_b_low,exponent_b_high,scale_a,r_squared,current_spend,"
            + "average_cpi,marginal_cpi,ltv_d180,headroom_spend,max_spend,saturated,inflated_days,advice")
        #expect(response[1].hasPrefix("adnova,fitted,30,0.5,0.45,0.55,2,0.97,100,5,10,20,400,180,true,1,"))
        #expect(response[2].hasPrefix("shorty,not enough spend history,9,,,,,,,,,,,,,0,"))
        let days = try #require(files["cpi_inflated_days.csv"]).components(separatedBy: "\r\n")
        #expect(days[1] == "adnova,2024-06-10,250,20,12.5,5,8.2,150")
    }

    @Test("HTML: a chart per fitted network with today's spend and the headroom marked; the reason without a curve")
    func html() {
        let html = HTMLRenderer.render(Self.sample())
        #expect(html.contains("<h2>Spend response</h2>"))
        #expect(html.contains("aria-label=\"Spend response of adnova: installs a day against daily spend\""))
        #expect(html.contains("today $100.00"))
        #expect(html.contains("headroom $400.00"))
        #expect(html.contains("<strong>shorty</strong>: not enough spend history"))
    }

    @Test("JSON: the section under spend_response with its documented keys")
    func json() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try JSONRenderer.render(Self.sample()).utf8)) as? [String: Any])
        let section = try #require(object["spend_response"] as? [String: Any])
        let networks = try #require(section["networks"] as? [[String: Any]])
        #expect(networks.first?["headroom_spend"] as? Double == 400)
        #expect(networks.first?["exponent_b_low"] as? Double == 0.45)
        #expect(networks.last?["marginal_cpi"] == nil)
        let days = try #require(section["inflated_days"] as? [[String: Any]])
        #expect(days.first?["excess_cost"] as? Double == 150)
    }
}
