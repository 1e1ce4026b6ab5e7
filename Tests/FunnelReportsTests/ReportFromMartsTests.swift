import Foundation
import FunnelCore
@testable import FunnelReports
import PostgresClient
import Testing

@Suite("Reports read from the marts of a hand-computed fixture")
struct ReportFromMartsTests {
    @Test("CPI per network is spend over its installs; blended CPI spreads spend over every install")
    func cpiPerNetwork() throws {
        let report = try ReportFixture.handComputed().report()
        let adnova = try #require(report.cpiTotals.first { $0.network == "adnova" })
        let pixel = try #require(report.cpiTotals.first { $0.network == "pixelreach" })
        #expect(adnova.cpi == 5)
        #expect(pixel.cpi == 15)
        let all = try #require(report.cpiTotals.first { $0.network == "all" })
        #expect(all.spend == 40)
        #expect(all.blendedCpi == 10)
        #expect(adnova.ctr == 0.05)
    }

    /// Installs from 2024-03-01 to 03-05 and a 30-day k-factor window: no cohort is mature, so
    /// the k-factor section says when the first is (2024-03-01 + 29 days = 03-30) instead of
    /// disappearing; the networks' thin samples say "not enough data" in WHAT TO DO.
    @Test("the k-factor shows 'matures on DATE' before its first mature cohort; thin samples say what is missing")
    func kfactorMaturesOn() throws {
        let report = try ReportFixture.handComputed().report()
        #expect(report.kfactor.isEmpty)
        #expect(report.kfactorMatures == KFactorMaturity(maturesOn: "2024-03-30", firstCohort: "2024-03-01", windowDays: 30))
        let text = TextRenderer.render(report).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        #expect(text.contains("INVITES (k-factor) k-factor matures on 2024-03-30: it counts install cohorts whose first 30 days"))
        #expect(HTMLRenderer.render(report).contains("k-factor matures on 2024-03-30"))
        let kfactor = try #require(CSVRenderer.render(report).first { $0.name == "kfactor.csv" }?.contents)
        #expect(kfactor.hasSuffix("\r\nall,,,,,,,,,,,0,2024-03-30\r\n"), "\(kfactor)")
        #expect(text.contains("[NOT ENOUGH DATA] adnova: 2 installs and 1 payers: a verdict needs at least 100 installs"), "\(text)")
    }

    /// adnova's $10 of spend is stated without a campaign or country; its installs are in DE and FR.
    /// --by campaign gives one row per campaign and day, --by campaign,country one cell at the
    /// spend's grain (country ''), never the spend in one cell and the installs in others; the
    /// campaigns section has the same CPI.
    @Test("spend and installs meet at the spend's grain in cpi rows and the campaigns section")
    func campaignGrain() throws {
        let f = try ReportFixture.handComputed()
        let byCampaign = try f.report(ReportRequest(breakdowns: [.campaign]))
        let campaign = byCampaign.cpi.filter { $0.network == "adnova" && $0.campaign != "all" }
        #expect(campaign.count == 1)
        #expect(campaign.first?.country == "all" && campaign.first?.spend == 10 && campaign.first?.paidInstalls == 2)
        #expect(campaign.first?.cpi == 5)
        let cells = try f.report(ReportRequest(breakdowns: [.campaign, .country])).cpi
            .filter { $0.network == "adnova" && $0.campaign != "all" }
        #expect(cells.map(\.country) == [""], "\(cells)")
        #expect(cells.first?.spend == 10 && cells.first?.installs == 2 && cells.first?.cpi == 5)
        let money = try #require(byCampaign.campaigns.first { $0.network == "adnova" && $0.level == "campaign" })
        #expect(money.cpi == 5 && money.spend == 10 && money.paidInstalls == 2)
        #expect(!byCampaign.campaigns.contains { $0.level == "country" })
        let withCountries = try f.report(ReportRequest(breakdowns: [.country])).campaigns
        #expect(withCountries.filter { $0.network == "adnova" && $0.level == "country" }.map(\.country) == [""])
        let csv = try #require(CSVRenderer.render(f.report(ReportRequest(breakdowns: [.campaign]))).first { $0.name == "cpi.csv" })
        #expect(csv.contents.contains("\r\n2024-03-01,adnova,,all,10,1000,50,2,2,5,5,0.05,"), "\(csv.contents)")
    }

    @Test("D1 retention counts cohort users active on the next calendar day")
    func dayOneRetention() throws {
        let report = try ReportFixture.handComputed().report(ReportRequest(breakdowns: [.network]))
        let d1 = try #require(report.retention.first { $0.mode == "classic" && $0.network == "all" && $0.day == 1 })
        #expect(d1.cohortSize == 4)
        #expect(d1.retained == 1)
        #expect(d1.rate == 0.25)
        let adnova = try #require(report.retention.first { $0.mode == "classic" && $0.network == "adnova" && $0.day == 1 })
        #expect(adnova.rate == 0.5)
        // The last data date is 03-05: day 5 of the 03-01 cohort is immature, so it is missing, not 0.
        #expect(!report.retention.contains { $0.day == 5 })
    }

    @Test("LTV is cumulative revenue over cohort installs, per network and for all networks")
    func ltvCurve() throws {
        let report = try ReportFixture.handComputed().report()
        func ltv(_ network: String, _ day: Int) -> Decimal? {
            report.ltv.first { $0.network == network && $0.day == day && !$0.projected }?.ltv
        }
        #expect(ltv("adnova", 0) == 2)
        #expect(ltv("pixelreach", 1) == 0)
        #expect(ltv("pixelreach", 2) == 1)
        #expect(ltv("all", 2) == 1.5)
        let network = try #require(report.networks.first { $0.network == "adnova" })
        #expect(network.cpi == 5)
        #expect(network.installs == 2)
    }

    @Test("money reaches the reports exactly: ten days of 1619.193 are 16191.93 in JSON and CSV, rounded only in text and HTML, whatever the marts' row order")
    func exactMoney() throws {
        let f = try ReportFixture()
        // Summed as doubles, ten days of 1619.193 are 16191.929999999997, and 0.3 revenue over 3
        // installs is 0.09999999999999999.
        for user in ["a1", "a2", "a3"] {
            try f.install(user, "2024-03-01T10:00:00Z", network: "adnova")
            try f.purchase(user, "2024-03-01T12:00:00Z", revenue: 0.1)
        }
        for day in 1...10 { try f.spend("2024-03-\(day < 10 ? "0" : "")\(day)", network: "adnova", spend: 1619.193) }
        try f.open("a1", "2024-03-12T10:00:00Z")
        try f.compute()
        let report = try f.report()
        let totals = try #require(report.cpiTotals.first { $0.network == "adnova" })
        #expect(totals.spend == Decimal(string: "16191.93"))
        #expect(totals.cpi == Decimal(string: "5397.31"))
        #expect(report.ltv.first { $0.network == "adnova" && $0.day == 0 && !$0.projected }?.ltv == Decimal(string: "0.1"))

        let json = try JSONRenderer.render(report)
        #expect(json.contains("\"spend\" : 16191.93,"))
        #expect(json.contains("\"ltv\" : 0.1,"))
        #expect(!json.contains("16191.92999"))
        #expect(!json.contains("\"ltv\" : 0.0999"))
        let files = Dictionary(uniqueKeysWithValues: CSVRenderer.render(report).map { ($0.name, $0.contents) })
        #expect(try #require(files["networks.csv"]).contains("\r\nadnova,3,3,16191.93,5397.31,"))
        #expect(try #require(files["cpi.csv"]).contains("\r\n2024-03-01,adnova,all,all,1619.193,0,0,3,3,539.731,539.731,"))
        #expect(try #require(files["ltv.csv"]).contains("\r\nadnova,0,3,0.3,0.1,false,"))
        // Text and HTML round for display only: cents, or whole dollars from $1,000 on.
        let text = TextRenderer.render(report)
        #expect(text.contains("$16,192") && text.contains("$5,397") && text.contains("$0.10"))
        #expect(HTMLRenderer.render(report).contains("$16,192"))

        // An interrupted run leaves the marts' rows in another order: the sums stay the same.
        try f.connection.execute("update fct_cpi set spend = spend where date <= '2024-03-05'")
        #expect(try f.report() == report)
    }

    @Test("the funnel lists every step overall; --by country adds one block per country")
    func funnelBreakdowns() throws {
        let f = try ReportFixture.handComputed()
        let overall = try f.report()
        #expect(overall.funnel.allSatisfy { $0.country == "all" && $0.network == "all" })
        #expect(overall.funnel.first { $0.stepIndex == 0 }?.users == 4)
        #expect(overall.funnel.first { $0.stepIndex == 1 }?.users == 2)
        let byCountry = try f.report(ReportRequest(breakdowns: [.country]))
        #expect(byCountry.funnel.first { $0.country == "DE" && $0.stepIndex == 0 }?.users == 3)
        #expect(!byCountry.funnel.contains { $0.network != "all" })
        #expect(byCountry.scope.notes.contains { $0.contains("per network only") })
    }

    @Test("a default step without input in the app is left out of every format, with a note saying why")
    func funnelLeavesOutStepsWithoutInput() throws {
        // The hand-computed fixture loads no onboarding steps: onboarding_complete is left out.
        let f = try ReportFixture.handComputed()
        let report = try f.report()
        #expect(report.funnel.filter { $0.funnel == "default" }.map(\.step)
            == ["install", "first_open", "regular_user", "first_purchase"])
        let note = "The acquisition funnel leaves out onboarding_complete: no \"onboarding_complete\" onboarding "
            + "step is loaded for this app, so its users go straight to the next step."
        #expect(report.scope.notes.contains { $0.hasPrefix(note) })
        let text = TextRenderer.render(report, colour: false)
        #expect(text.contains("leaves out onboarding_complete"))
        #expect(try JSONRenderer.render(report).contains("leaves out onboarding_complete"))
    }

    @Test("--from/--to limit the funnel, the retention triangle and spend by date")
    func dateScope() throws {
        let report = try ReportFixture.handComputed().report(ReportRequest(from: "2024-03-02", to: "2024-03-31"))
        #expect(report.retention.isEmpty)
        #expect(report.cpi.isEmpty)
        #expect(report.funnel.isEmpty)
        #expect(report.scope.notes.contains { $0.contains("--from/--to") })
        // The fixture's only cohort and spend date, inside the range, are all there.
        let included = try ReportFixture.handComputed().report(ReportRequest(from: "2024-03-01", to: "2024-03-01"))
        #expect(included.retention.contains { $0.mode == "classic" && $0.network == "all" && $0.day == 1 && $0.rate == 0.25 })
        #expect(included.cpi.contains { $0.date == "2024-03-01" && $0.network == "adnova" && $0.cpi == 5 })
        #expect(included.funnel.first { $0.stepIndex == 0 }?.users == 4)
    }

    @Test("--from/--to compute the funnel from those install cohorts' users only, medians included")
    func funnelDateScope() throws {
        let f = try ReportFixture()
        // 1 March: both users open, after 1 h and 3 h. 10 March: one opens after 10 h, one never.
        try f.install("a", "2024-03-01T10:00:00Z")
        try f.open("a", "2024-03-01T11:00:00Z")
        try f.install("b", "2024-03-01T10:00:00Z")
        try f.open("b", "2024-03-01T13:00:00Z")
        try f.install("c", "2024-03-10T10:00:00Z")
        try f.open("c", "2024-03-10T20:00:00Z")
        try f.install("d", "2024-03-10T10:00:00Z")
        try f.compute()
        func firstOpen(_ report: Report) -> FunnelRow? {
            report.funnel.first { $0.funnel == "default" && $0.network == "all" && $0.stepIndex == 1 }
        }
        let all = try #require(firstOpen(try f.report()))
        #expect(all.users == 3)
        #expect(all.conversionFromPrevious == 0.75)
        #expect(all.medianSecondsToConvert == 10_800) // 1 h, 3 h, 10 h
        let early = try #require(firstOpen(try f.report(ReportRequest(from: "2024-03-01", to: "2024-03-05"))))
        #expect(early.users == 2)
        #expect(early.conversionFromPrevious == 1)
        #expect(early.medianSecondsToConvert == 7_200) // between 1 h and 3 h
        let late = try #require(firstOpen(try f.report(ReportRequest(from: "2024-03-06"))))
        #expect(late.users == 1)
        #expect(late.conversionFromPrevious == 0.5)
        #expect(late.medianSecondsToConvert == 36_000)
    }

    @Test("a configured retention is reported: install to purchase, classic, rolling and the bracket, per network")
    func configuredRetention() throws {
        let f = try ReportFixture.handComputed()
        try f.compute(try FunnelConfiguration(toml: """
            [[retention]]
            name = "buyers"
            return = "purchase"
            periods = 10
            brackets = ["1-2"]
            """))
        let report = try f.report()
        // Cohort 03-01 of 4: a1's purchase is on day 0 (the cohort itself), p2's on day 2.
        func rate(_ measure: String, _ period: Int, network: String = "all") -> Double?? {
            report.customRetention.first {
                $0.retention == "buyers" && $0.network == network && $0.measure == measure && $0.firstPeriod == period
            }.map(\.rate)
        }
        #expect(rate("classic", 1) == .some(0))
        #expect(rate("classic", 2) == .some(0.25))
        #expect(rate("rolling", 1) == .some(0.25))
        #expect(rate("bracket", 1) == .some(0.25))
        #expect(rate("classic", 2, network: "pixelreach") == .some(0.5))
        #expect(rate("classic", 2, network: "adnova") == .some(0))
        let text = TextRenderer.render(report)
        #expect(text.contains("RETENTION DEFINITIONS"))
        #expect(text.contains("buyers"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 })
        let csv = try #require(CSVRenderer.render(report).first { $0.name == "custom_retention.csv" })
        #expect(csv.contents.contains("buyers,all,classic,2,2,1,4,1,0.25"))
    }

    @Test("friction is reported as not computed while the app has no friction results (no ux telemetry)")
    func frictionNotComputed() throws {
        let report = try ReportFixture.handComputed().report()
        #expect(report.friction.status == .notComputed)
        #expect(TextRenderer.render(report).contains("Not computed yet"))
    }

    @Test("CSV files carry the fixture's values: fractions for rates, empty cells for undefined values")
    func csvValues() throws {
        let report = try ReportFixture.handComputed().report()
        let files = Dictionary(uniqueKeysWithValues: CSVRenderer.render(report).map { ($0.name, $0.contents) })
        let networks = try #require(files["networks.csv"])
        #expect(networks.contains("\r\nadnova,2,2,10,5,"))
        // Data ends on 03-05, so day 7 and day 30 of the 03-01 cohort are immature: LTV and ROAS
        // there are empty cells, not 0. (The columns checked all come before the quoted reason.)
        let lines = networks.components(separatedBy: "\r\n")
        let header = lines[0].components(separatedBy: ",")
        let adnova = try #require(lines.first { $0.hasPrefix("adnova,") }).components(separatedBy: ",")
        for column in ["ltv_d7", "ltv_d30", "roas_d7", "roas_d30"] {
            let index = try #require(header.firstIndex(of: column), "networks.csv has no \(column) column")
            #expect(adnova[index] == "", "\(column) of adnova is '\(adnova[index])'")
        }
        let retention = try #require(files["retention.csv"])
        #expect(retention.contains("classic,2024-03-01,all,4,1,1,0.25\r\n"))
    }
}
