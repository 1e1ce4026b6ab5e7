import Foundation
@testable import FunnelReports
import Testing

@Suite("Renderers")
struct RenderingTests {
    static let headers: [String: String] = [
        "funnel.csv": "funnel,network,campaign,country,platform,step_index,step,users,conversion_from_previous,conversion_from_first,median_seconds_to_convert",
        "retention.csv": "mode,cohort_date,network,cohort_size,day,retained,rate",
        "ltv.csv": "network,day,installs,revenue,ltv,projected,ltv_low,ltv_high",
        "cpi.csv": "date,network,campaign,country,spend,impressions,clicks,installs,paid_installs,cpi,blended_cpi,ctr,ipm",
        "kfactor.csv": "network,cohort_size,invites_sent,viral_installs,invites_per_user,invite_conversion,k_factor,cycle_time_hours,amplification,cpi,viral_adjusted_cpi",
        "friction.csv": "screen,friction_type,users_hit,users_not_hit,dropoff_hit,dropoff_not_hit,relative_risk,p_value,users_lost,flagged",
        "networks.csv": "network,installs,paid_installs,spend,cpi,ltv_d7,ltv_d30,ltv_projected_d180,roas_d7,roas_d30,payback_day,k_factor,verdict,reason",
        "campaigns.csv": "level,network,campaign,country,cohorts,installs,paid_installs,payers,spend,cpi,ltv_d7,ltv_d30,ltv_d90,roas_d7,roas_d30,roas_d90,observed_ltv_d7,pooled_ltv_d7,pooling_weight,ltv_projected_d180,ltv_d180_low,ltv_d180_high,roas_projected_d180,payback_day,payback_basis,verdict,reason",
    ]

    @Test("every CSV file starts with docs/reports.md's columns in order", arguments: headers.keys.sorted())
    func csvHeader(file: String) throws {
        let files = Dictionary(uniqueKeysWithValues: CSVRenderer.render(Self.sample()).map { ($0.name, $0.contents) })
        let header = try #require(files[file]?.components(separatedBy: "\r\n").first)
        #expect(header.hasPrefix(try #require(Self.headers[file])))
    }

    @Test("a configured funnel's breakdown rows get one block per value in text, HTML and CSV; no value reads (none)")
    func funnelBreakdownBlocks() throws {
        var report = Self.sample()
        for (value, users) in [("pro", [40, 30]), (nil, [10, 2])] as [(String?, [Int])] {
            for (index, step) in ["signup_started", "signup_completed"].enumerated() {
                report.funnel.append(FunnelRow(funnel: "signup", network: "all", campaign: "all", country: "all", platform: "all",
                                               stepIndex: index, step: step, users: users[index],
                                               conversionFromPrevious: nil, conversionFromFirst: nil, medianSecondsToConvert: nil,
                                               breakdownProperty: "plan", breakdownValue: value))
            }
        }
        let text = TextRenderer.render(report, colour: false)
        #expect(text.contains("signup - plan = pro"))
        #expect(text.contains("signup - plan = (none)"))
        #expect(HTMLRenderer.render(report).contains("plan = (none)"))
        let csv = try #require(CSVRenderer.render(report).first { $0.name == "funnel.csv" }?.contents)
        #expect(csv.contains("signup,all,all,all,all,1,signup_completed,30,,,,plan,pro\r\n"))
        #expect(csv.contains("signup,all,all,all,all,0,signup_started,10,,,,plan,\r\n"))
    }

    @Test("formula-looking text cells get a leading quote; plain numbers, negative ones included, stay numbers")
    func csvInjection() {
        #expect(CSVRenderer.neutralise("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")")
        #expect(CSVRenderer.neutralise("+1+2") == "'+1+2")
        #expect(CSVRenderer.neutralise("-2+3") == "'-2+3")
        #expect(CSVRenderer.neutralise("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSVRenderer.neutralise("\tcmd") == "'\tcmd")
        #expect(CSVRenderer.neutralise("\rcmd") == "'\rcmd")
        #expect(CSVRenderer.neutralise("-12.5") == "-12.5")
        #expect(CSVRenderer.neutralise("adnova") == "adnova")
        #expect(CSVRenderer.field(.number(-3.25)) == "-3.25")
        #expect(CSVRenderer.field(.text("=1+1,\"x\"")) == "\"'=1+1,\"\"x\"\"\"")
        #expect(CSVRenderer.field(.number(nil)) == "")
    }

    @Test("money is rounded for display only, half away from zero on the exact decimal; CSV writes the exact decimal")
    func moneyFormats() throws {
        func money(_ text: String) throws -> Decimal { try #require(Decimal(string: text)) }
        // 2.675 as a double is 2.67499999999999982236431605997495353221893310546875: "%.2f" gave $2.67.
        #expect(Formatting.money(try money("2.675")) == "$2.68")
        #expect(Formatting.money(try money("0.1")) == "$0.10")
        #expect(Formatting.money(try money("-3.5")) == "$-3.50")
        #expect(Formatting.money(try money("999.994")) == "$999.99")
        #expect(Formatting.money(try money("999.995")) == "$1,000")
        #expect(Formatting.money(try money("16191.930000")) == "$16,192")
        #expect(Formatting.money(try money("1234567.5")) == "$1,234,568")
        #expect(Formatting.money(nil as Decimal?) == "-")
        #expect(CSVRenderer.field(.money(try money("16191.930000"))) == "16191.93")
        #expect(CSVRenderer.field(.money(try money("14.2857142857142857"))) == "14.2857142857142857")
        #expect(CSVRenderer.field(.money(try money("0.000001"))) == "0.000001")
        #expect(CSVRenderer.field(.money(nil)) == "")
    }

    @Test("a hostile network name is neutralised in networks.csv and escaped in the HTML")
    func hostileNames() {
        var report = Self.sample()
        report.networks[0].network = "=cmd|' /C calc'!A0"
        report.networks[0].reason = "<script>alert(1)</script>"
        let csv = CSVRenderer.render(report).first { $0.name == "networks.csv" }!.contents
        #expect(csv.contains("\r\n'=cmd|' /C calc'!A0,"))
        #expect(!HTMLRenderer.render(report).contains("<script>"))
    }

    @Test("every line of the text report fits 100 columns, even with long names")
    func textWidth() {
        var report = Self.sample()
        report.networks[0].network = String(repeating: "very-long-network-name-", count: 8)
        report.networks[0].reason = String(repeating: "a long reason ", count: 20)
        for colour in [false, true] {
            let text = TextRenderer.render(report, colour: colour)
                .replacing(/\x{1b}\[[0-9;]*m/, with: "")
            for line in text.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
        }
    }

    @Test("the text report puts what to do first and says the verdict in words, not only colour")
    func textSummaryFirst() {
        let text = TextRenderer.render(Self.sample(), colour: true)
        let plain = TextRenderer.render(Self.sample(), colour: false)
        #expect(text.contains("\u{1b}["))
        #expect(!plain.contains("\u{1b}["))
        let summary = try! #require(plain.range(of: "WHAT TO DO"))
        let details = try! #require(plain.range(of: "NETWORKS"))
        #expect(summary.lowerBound < details.lowerBound)
        #expect(plain.contains("[SCALE] adnova"))
        #expect(plain.contains("ROAS D7"))
        #expect(HTMLRenderer.render(Self.sample()).contains("<th scope=\"col\">ROAS D7</th>"))
        #expect(plain.contains("\n    adnova_summer"))
        #expect(HTMLRenderer.render(Self.sample()).contains("<td>adnova / adnova_summer</td>"))
        #expect(plain.contains("[CUT] pixelreach"))
        #expect(plain.contains("calendar days"))
    }

    @Test("the JSON document has the documented top-level shape with snake_case keys and undefined values left out")
    func jsonShape() throws {
        let json = try JSONRenderer.render(Self.sample())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["scope", "has_data", "networks", "funnel", "funnel_top", "retention",
                                     "retention_summary", "retention_brackets", "custom_retention", "regular_users", "ltv", "ltv_models", "ltv_backtest",
                                     "cpi", "cpi_totals", "kfactor", "friction", "spend_response", "plan", "campaigns"])
        let scope = try #require(object["scope"] as? [String: Any])
        #expect(scope["day_rule"] as? String == "calendar")
        let networks = try #require(object["networks"] as? [[String: Any]])
        #expect(networks.first?["ltv_projected_d180"] as? Double == 12)
        let friction = try #require(object["friction"] as? [String: Any])
        #expect(friction["status"] as? String == "computed")
        #expect(networks.first?["ltv_d30"] == nil)
    }

    @Test("every field of every section is in report.json under the name Foundation's convertToSnakeCase gives it")
    func jsonKeysAreFoundationSnakeCase() throws {
        var report = Self.sample()
        report.funnelTop = [FunnelTopRow(network: "adnova", impressions: 100_000, clicks: 2000, installs: 1200, ctr: 0.02,
                                         clickToInstall: 0.6, ipm: 12)]
        report.retentionBrackets = [RetentionBracketRow(network: "all", bracket: "1-3", firstDay: 1, lastDay: 3, cohorts: 5,
                                                        cohortSize: 500, retained: 200, rate: 0.4)]
        report.regularUsers = [RegularUsersRow(network: "all", cohorts: 5, cohortSize: 500, regularUsers: 50, rate: 0.1)]
        report.ltvModels = [LTVModelRow(network: "adnova", model: "power", a: 0.5, b: 0.4, points: 30, fitFromDay: 1,
                                        fitToDay: 30, residualSd: 0.01, rSquared: 0.98, note: "fit")]
        report.scope.from = "2024-06-01"
        report.scope.to = "2024-06-29"
        report.scope.notes = ["a note"]
        report.scope.nextSteps = ["a step"]
        let json = try JSONSerialization.jsonObject(with: Data(try JSONRenderer.render(report).utf8))
        var objects = 0
        // Walks the value beside its JSON: a struct is an object whose keys are its non-nil
        // fields, each named as the built-in strategy names it (the renderer spells them out).
        func compare(_ value: Any, _ node: Any, _ path: String) throws {
            // Money is a Decimal, a struct that JSON writes as a number: a leaf, like Double.
            if value is Decimal { return }
            let mirror = Mirror(reflecting: value)
            switch mirror.displayStyle {
            case .struct:
                let object = try #require(node as? [String: Any], "\(path) is an object")
                objects += 1
                var expected: [String: Any] = [:]
                for child in mirror.children {
                    let field = Mirror(reflecting: child.value)
                    if field.displayStyle == .optional {
                        guard let wrapped = field.children.first?.value else { continue }
                        expected[try Self.foundationSnakeCase(child.label ?? "")] = wrapped
                    } else {
                        expected[try Self.foundationSnakeCase(child.label ?? "")] = child.value
                    }
                }
                #expect(Set(object.keys) == Set(expected.keys), "\(path)")
                for (key, fieldValue) in expected {
                    if let fieldNode = object[key] { try compare(fieldValue, fieldNode, "\(path).\(key)") }
                }
            case .collection:
                let array = try #require(node as? [Any], "\(path) is an array")
                let elements = mirror.children.map(\.value)
                #expect(array.count == elements.count, "\(path)")
                for (index, element) in zip(elements, array).enumerated() {
                    try compare(element.0, element.1, "\(path)[\(index)]")
                }
            default:
                break
            }
        }
        try compare(report, json, "report")
        #expect(objects > 60, "every section has rows to compare")
    }

    /// The name `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` gives a field.
    static func foundationSnakeCase(_ name: String) throws -> String {
        struct Probe: Encodable {
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            let name: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(0, forKey: Key(stringValue: name))
            }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let object = try JSONSerialization.jsonObject(with: try encoder.encode(Probe(name: name))) as? [String: Any]
        return try #require(object?.keys.first)
    }

    @Test("the HTML is one self-contained file with SVG charts and accessible titles")
    func htmlSelfContained() {
        let html = HTMLRenderer.render(Self.sample())
        #expect(html.contains("<meta name=\"viewport\""))
        #expect(html.contains("<title>"))
        #expect(html.contains("<svg"))
        #expect(html.contains("aria-label=\"Funnel"))
        #expect(html.contains("aria-label=\"Retention heat map"))
        #expect(html.contains("aria-label=\"LTV"))
        #expect(html.contains("stroke-dasharray"))
        #expect(html.contains("signup"))
        #expect(html.firstMatch(of: /(src|href)\s*=\s*["']?\s*(https?:)?\/\//) == nil)
        #expect(!html.contains("@import"))
    }

    /// A report built by hand: two networks, a funnel, retention, an LTV curve with a projection,
    /// and a flagged friction.
    static func sample() -> Report {
        var report = Report.empty(scope: ReportScopeInfo(
            app: "com.example.app", apps: ["com.example.app"], from: nil, to: nil, breakdowns: [], dayRule: "calendar",
            dayRuleLabel: ReportReader.label(dayRule: "calendar"), dataThroughDate: "2024-06-29",
            computedAt: "2024-06-30T06:00:00Z", notes: [], nextSteps: []))
        report.hasData = true
        report.networks = [
            NetworkRow(network: "adnova", installs: 1200, paidInstalls: 1200, spend: 2400, cpi: 2, ltvD7: 1.1, ltvD30: nil,
                       ltvProjectedD180: 12, ltvD180Low: 9, ltvD180High: 15, roasD7: 0.55, roasD30: nil, paybackDay: 20,
                       paybackBasis: "projected", kFactor: 0.1, verdict: "scale", reason: "projected D180 LTV is 6.0x CPI; raise spend by at most 20% a step"),
            NetworkRow(network: "pixelreach", installs: 800, paidInstalls: 800, spend: 4000, cpi: 5, ltvD7: 0.4, ltvD30: 1,
                       ltvProjectedD180: 2, ltvD180Low: 1.5, ltvD180High: 2.5, roasD7: 0.08, roasD30: 0.2, paybackDay: nil,
                       paybackBasis: nil, kFactor: 0.02, verdict: "cut", reason: "projected D180 LTV is 0.4x CPI"),
        ]
        report.campaigns = [
            CampaignRow(network: "adnova", campaign: "all", country: "all", cohorts: 30, installs: 1200, paidInstalls: 1200,
                        payers: 60, spend: 2400, cpi: 2, ltvD7: 1.1, ltvD30: nil, ltvD90: nil, roasD7: 0.55, roasD30: nil,
                        roasD90: nil, observedLtvD7: nil, pooledLtvD7: nil, poolingWeight: 1, ltvProjectedD180: 12,
                        ltvD180Low: 9, ltvD180High: 15, roasProjectedD180: 6, paybackDay: 20, paybackBasis: "projected",
                        verdict: "scale", reason: "projected D180 LTV is 6.0x CPI"),
            CampaignRow(network: "adnova", campaign: "adnova_summer", country: "all", cohorts: 30, installs: 300,
                        paidInstalls: 300, payers: 12, spend: 660, cpi: 2.2, ltvD7: 0.9, ltvD30: nil, ltvD90: nil, roasD7: 0.41,
                        roasD30: nil, roasD90: nil, observedLtvD7: 0.8, pooledLtvD7: 1.0, poolingWeight: 0.25,
                        ltvProjectedD180: 10.9, ltvD180Low: 6, ltvD180High: 17, roasProjectedD180: 4.95, paybackDay: 24,
                        paybackBasis: "projected", verdict: "hold", reason: "pooled with adnova"),
        ]
        let steps = ["install", "first_open", "onboarding_complete", "regular_user", "first_purchase"]
        let users = [2000, 1500, 900, 400, 100]
        for index in steps.indices {
            let previous: Double? = index == 0 ? nil : Double(users[index]) / Double(users[index - 1])
            let median: Double? = index == 0 ? nil : 3600
            report.funnel.append(FunnelRow(funnel: "default", network: "all", campaign: "all", country: "all", platform: "all",
                                           stepIndex: index, step: steps[index], users: users[index],
                                           conversionFromPrevious: previous, conversionFromFirst: Double(users[index]) / 2000,
                                           medianSecondsToConvert: median))
        }
        for cohort in 0..<6 {
            for day in 0...(5 - cohort) {
                let retained = day == 0 ? 100 : 40 - 5 * day
                report.retention.append(RetentionRow(mode: "classic", cohortDate: "2024-06-2\(cohort)", network: "all",
                                                     cohortSize: 100, day: day, retained: retained, rate: Double(retained) / 100))
            }
        }
        report.retentionSummary = [1, 3, 7].map {
            RetentionSummaryRow(mode: "classic", network: "all", day: $0, cohorts: 10, cohortSize: 1000, retained: 300 / $0,
                                rate: 0.3 / Double($0))
        }
        for network in ["adnova", "pixelreach"] {
            let slope: Decimal = network == "adnova" ? 0.1 : 0.03
            for day in 0...30 {
                report.ltv.append(LTVRow(network: network, day: day, projected: false, cohorts: 3, installs: 100,
                                         revenue: Decimal(day) * 5, ltv: 0.5 + Decimal(day) * slope, ltvLow: nil,
                                         ltvHigh: nil, spend: 200, roas: 0.1))
            }
            for day in [90, 180] {
                report.ltv.append(LTVRow(network: network, day: day, projected: true, cohorts: nil, installs: nil, revenue: nil,
                                         ltv: network == "adnova" ? 10 : 2, ltvLow: 1.5, ltvHigh: 12, spend: nil, roas: nil))
            }
        }
        report.cpiTotals = [CPIRow(date: "", network: "adnova", campaign: "all", country: "all", spend: 2400, impressions: 100_000,
                                   clicks: 2000, installs: 1200, paidInstalls: 1200, cpi: 2, blendedCpi: 2, ctr: 0.02, ipm: 12)]
        report.cpi = report.cpiTotals.map { var row = $0; row.date = "2024-06-01"; return row }
        report.kfactor = [KFactorRow(network: "all", cohorts: 30, cohortSize: 2000, invitesSent: 300, viralInstalls: 60,
                                     invitesPerUser: 0.15, inviteConversion: 0.2, kFactor: 0.03, cycleTimeHours: 30,
                                     amplification: 1.03, cpi: 3, viralAdjustedCpi: 2.91)]
        report.friction = FrictionSection(status: .computed, rows: [
            FrictionRow(screen: "signup", frictionType: "keyboard_covers_input", usersHit: 300, usersNotHit: 1700, dropoffHit: 0.6,
                        dropoffNotHit: 0.3, relativeRisk: 2, pValue: 0.0001, qValue: 0.0004, usersLost: 90, flagged: true, rank: 1),
        ])
        return report
    }
}
