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
        report.spendResponse.networks[0].curveForm = "power law"
        return report
    }

    /// The sample plus a saturating network (M = 100, K = 200 at $200 a day: marginal CPI $8,
    /// headroom $300 against an LTV of $12.50; the example of docs/metrics.md), a campaign with too
    /// little history, and CPI by hour of day (09:00 index 0.5, 20:00 index 1.5).
    static func saturatingSample() -> Report {
        var report = sample()
        report.spendResponse.networks.append(
            SpendResponseRow(network: "satnet", status: "fitted", days: 28, exponentB: 0.6, exponentBLow: 0.5,
                             exponentBHigh: 0.7, scaleA: 3, rSquared: 0.99, currentSpend: 200, averageCpi: 4,
                             marginalCpi: 8, ltvD180: 12.5, headroomSpend: 300, maxSpend: 800, saturated: true,
                             inflatedDays: 0, advice: "raise spend from $200.00 to about $300.00 a day",
                             curveForm: "saturating", saturatingCapacity: 100, saturatingHalfSpend: 200))
        report.spendResponse.segments = [
            SpendResponseRow(network: "adnova", status: "not enough data", days: 9, exponentB: nil, exponentBLow: nil,
                             exponentBHigh: nil, scaleA: nil, rSquared: nil, currentSpend: nil, averageCpi: nil,
                             marginalCpi: nil, ltvD180: nil, headroomSpend: nil, maxSpend: nil, saturated: nil,
                             inflatedDays: 0, advice: "not enough spend history: 9 days with spend and installs (needs 14)",
                             campaign: "adnova_new"),
        ]
        report.spendResponse.cpiByHour = [
            HourlyCPIRow(network: "adnova", hour: 9, days: 2, spend: 60, paidInstalls: 6, cpi: 10, cpiIndex: 0.5),
            HourlyCPIRow(network: "adnova", hour: 20, days: 2, spend: 180, paidInstalls: 6, cpi: 30, cpiIndex: 1.5),
        ]
        return report
    }

    /// pixelreach is cut (RenderingTests.sample); a degenerate fit of adnova's country BR (b
    /// 1.00 [1.00-1.00]); pixelreach's country IN whose curve alone would raise spend; adnova's
    /// campaign adnova_summer, whose verdict (hold, under Campaigns) stands in for its curve's advice.
    @Test("segment curves: a degenerate fit shows no numbers, advice never goes against the verdicts")
    func segmentAdvice() throws {
        var report = Self.sample()
        func segment(_ network: String, campaign: String = "all", country: String = "all", b: Double, low: Double,
                     high: Double, marginal: Decimal = 3.5, advice: String) -> SpendResponseRow {
            SpendResponseRow(network: network, status: "fitted", days: 20, exponentB: b, exponentBLow: low,
                             exponentBHigh: high, scaleA: 1, rSquared: 0.9, currentSpend: 50, averageCpi: 3,
                             marginalCpi: marginal, ltvD180: 8, headroomSpend: 90, maxSpend: 60, saturated: false,
                             inflatedDays: 0, advice: advice, campaign: campaign, country: country)
        }
        report.spendResponse.segments = [
            segment("adnova", country: "BR", b: 1, low: 1, high: 1, marginal: 4.25, advice: "raise spend from $50.00 to about $90.00 a day"),
            segment("pixelreach", country: "IN", b: 0.6, low: 0.4, high: 0.8, advice: "raise spend from $50.00 to about $90.00 a day"),
            segment("adnova", campaign: "adnova_summer", b: 0.7, low: 0.5, high: 0.9, advice: "lower spend to about $40.00 a day"),
        ]
        let html = HTMLRenderer.render(report)
        #expect(html.contains("degenerate fit"))
        #expect(!html.contains("1.00 [1.00–1.00]"))
        #expect(!html.contains("$4.25"))
        #expect(html.contains("the curve alone would raise spend, but the network&#39;s verdict is cut")
                || html.contains("the curve alone would raise spend, but the network's verdict is cut"))
        #expect(html.contains("campaign verdict: hold"))
        #expect(!html.contains("raise spend from $50.00"))
        #expect(!html.contains("lower spend to about $40.00"))
        let text = TextRenderer.render(report)
        #expect(text.contains("degenerate"))
        #expect(!text.contains("1.00 (1.00-1.00)"))
    }

    @Test("the saturating form, segments and CPI by hour in text, HTML, CSV and JSON")
    func saturatingSegmentsAndHours() throws {
        let report = Self.saturatingSample()
        let satnet = report.spendResponse.networks[2]
        // The chart follows the chosen curve: 100 * 300 / (200 + 300) = 60 installs at the headroom.
        #expect(abs((satnet.expectedInstalls(spend: 300) ?? 0) - 60) < 1e-9)
        let text = TextRenderer.render(report)
        #expect(text.contains("saturating"))
        #expect(text.contains("adnova / campaign adnova_new"))
        #expect(text.contains("not enough data"))
        #expect(text.contains("CPI by hour of day"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= TextRenderer.width },
                "\(text.split(separator: "\n").filter { $0.count > TextRenderer.width })")
        let html = HTMLRenderer.render(report)
        #expect(html.contains(">satnet, saturating (saturated)</text>"))
        #expect(html.contains("<details><summary>Per campaign and per country (1 curves)</summary>"))
        #expect(html.contains("<h3>CPI by hour of day</h3>"))
        let files = Dictionary(uniqueKeysWithValues: CSVRenderer.render(report).map { ($0.name, $0.contents) })
        let segments = try #require(files["spend_response_segments.csv"]).components(separatedBy: "\r\n")
        #expect(segments[1].hasPrefix("adnova,adnova_new,all,not enough data,9,,"))
        let hours = try #require(files["cpi_by_hour.csv"]).components(separatedBy: "\r\n")
        #expect(hours[0] == "network,hour,days,spend,paid_installs,cpi,cpi_index")
        #expect(hours[2] == "adnova,20,2,180,6,30,1.5")
        let response = try #require(files["spend_response.csv"]).components(separatedBy: "\r\n")
        #expect(response[3].hasSuffix(",saturating,100,200"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try JSONRenderer.render(report).utf8)) as? [String: Any])
        let section = try #require(object["spend_response"] as? [String: Any])
        #expect((section["cpi_by_hour"] as? [[String: Any]])?.last?["cpi_index"] as? Double == 1.5)
        #expect((section["segments"] as? [[String: Any]])?.first?["status"] as? String == "not enough data")
        #expect((section["networks"] as? [[String: Any]])?.last?["curve_form"] as? String == "saturating")
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
        // WHAT TO DO says the verdict's own reason, which carries its spend move; the curve's
        // advice stays in its section and is not repeated beside the verdict.
        let summary = text.components(separatedBy: "WHAT TO DO")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(!summary.contains("Spend curve:"))
        #expect(!HTMLRenderer.render(Self.sample()).contains("Spend curve:"))
    }

    @Test("CSV: spend_response.csv and cpi_inflated_days.csv with empty cells where there is no curve")
    func csv() throws {
        let files = Dictionary(uniqueKeysWithValues: CSVRenderer.render(Self.sample()).map { ($0.name, $0.contents) })
        let response = try #require(files["spend_response.csv"]).components(separatedBy: "\r\n")
        #expect(response[0] == "network,status,days,exponent_b,exponent_b_low,exponent_b_high,scale_a,r_squared,current_spend,"
            + "average_cpi,marginal_cpi,ltv_d180,headroom_spend,max_spend,saturated,inflated_days,advice,curve_form,"
            + "saturating_capacity,saturating_half_spend")
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
