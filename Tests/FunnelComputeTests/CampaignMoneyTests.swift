import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import PostgresClient
import Testing
import TestSupport

/// Money by campaign (fct_campaigns, docs/metrics.md "Money by campaign").
@Suite("Money by campaign")
struct CampaignMoneyTests {
    /// Reads a generated CSV file as rows of named fields (quotes honoured).
    static func csv(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
        guard let head = lines.first else { return [] }
        func fields(_ line: Substring) -> [String] {
            var out: [String] = [], field = "", quoted = false
            var characters = Array(line).makeIterator()
            while let c = characters.next() {
                if quoted {
                    if c == "\"" { quoted = false } else { field.append(c) }
                } else if c == "\"" {
                    quoted = true
                } else if c == "," {
                    out.append(field)
                    field = ""
                } else {
                    field.append(c)
                }
            }
            out.append(field)
            return out
        }
        let names = fields(head)
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(names, fields(line)))
        }
    }

    /// A timestamp as the generator writes it: ISO 8601 with Z or an offset, or epoch milliseconds.
    static func instant(_ text: String) -> Date? {
        if let ms = Double(text), !text.contains("-") { return Date(timeIntervalSince1970: ms / 1000) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Days since 1970-01-01 of an instant's UTC date.
    static func utcDay(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    struct Figures {
        var spend = 0.0
        var paidInstalls = 0
        /// Per cohort day: spend and revenue by day since install.
        var cohortSpend: [Int: Double] = [:]
        var cohortRevenue: [Int: [Int: Double]] = [:]
    }

    /// Campaign-level spend, paid installs, CPI and chained ROAS D7 from the generated input files,
    /// without the database's SQL: first install per user (its network, campaign and country;
    /// paid when neither invited nor referred and not organic), the last stated spend of each
    /// (date, network, campaign, country), purchases (one per event id) at or after the install,
    /// in USD at the reference rates, counted on their UTC day since the install's UTC date.
    /// Chained ROAS D7 = the sum over days m = 0..7 of the revenue on day m of the cohorts mature
    /// for m over those cohorts' spend; a cohort is mature for m when its date + m is on or
    /// before the last data date.
    @Test("campaign and campaign-and-country spend, paid installs, CPI and ROAS D7 equal an independent computation from the generated files")
    func generatedData() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "campaign-money").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = GeneratorOptions(outputDirectory: directory, users: 3_000, days: 21, seed: 7)
        let truth = try Generator.run(options).truth
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: directory, settings: settings)
        guard let summary = try ComputeEngine(configuration: FunnelConfiguration())
            .run(connection, options: ComputeOptions(full: true, waitForLock: true)) else {
            throw ComputeError("compute lock was busy")
        }
        #expect(summary.failedChecks.isEmpty, "\(summary.failedChecks)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        func rows(_ kind: String) throws -> [[String: String]] {
            try files.filter { $0.hasPrefix(kind + "-") && $0.hasSuffix(".csv") }.flatMap { try Self.csv(directory + "/" + $0) }
        }
        // First install per user.
        var firstInstall: [String: (at: Date, network: String, campaign: String, country: String, paid: Bool)] = [:]
        for row in try rows("installs") {
            guard let user = row["user_id"], let at = row["installed_at"].flatMap(Self.instant) else { continue }
            if let known = firstInstall[user], known.at <= at { continue }
            let network = row["network"] ?? ""
            let paid = (row["referrer_user_id"] ?? "").isEmpty && (row["invite_id"] ?? "").isEmpty
                && network.lowercased() != "organic"
            firstInstall[user] = (at, network, row["campaign"] ?? "", row["country"] ?? "", paid)
        }
        var lastSpend: [String: (key: [String], day: Int, usd: Double)] = [:]
        for row in try rows("ad_spend") {
            let key = [row["network"]!, row["campaign"]!, row["country"]!]
            let day = Self.utcDay(Self.instant(row["date"]! + "T00:00:00Z")!)
            let rate = ReferenceRates.usdPerUnit[row["currency"] ?? "USD"] ?? 0
            lastSpend[(key + [row["date"]!, row["hour"] ?? ""]).joined(separator: "|")] = (key, day, Double(row["spend"]!)! * rate)
        }
        let dataThrough = try connection.query("select (data_through_date - date '1970-01-01')::int from compute_state")
            .scalar(Int.self)
        #expect(dataThrough == Self.utcDay(Self.instant("2024-05-21T00:00:00Z")!))
        var figures: [[String]: Figures] = [:]
        func keys(_ cell: [String]) -> [[String]] { [[cell[0], cell[1], "all"], cell] }
        for spend in lastSpend.values {
            for key in keys(spend.key) {
                figures[key, default: Figures()].spend += spend.usd
                figures[key, default: Figures()].cohortSpend[spend.day, default: 0] += spend.usd
            }
        }
        for install in firstInstall.values where install.paid {
            for key in keys([install.network, install.campaign, install.country]) {
                figures[key, default: Figures()].paidInstalls += 1
            }
        }
        var seen = Set<String>()
        for row in try rows("purchases") {
            guard let id = row["event_id"], seen.insert(id).inserted, let user = row["user_id"],
                  let install = firstInstall[user], let at = row["purchased_at"].flatMap(Self.instant),
                  at >= install.at else { continue }
            let usd = Double(row["revenue"]!)! * (ReferenceRates.usdPerUnit[row["currency"]!] ?? 0)
            let cohort = Self.utcDay(install.at)
            for key in keys([install.network, install.campaign, install.country]) {
                figures[key, default: Figures()].cohortRevenue[cohort, default: [:]][Self.utcDay(at) - cohort, default: 0] += usd
            }
        }

        var stored: [[String]: (spend: Double, paid: Int, cpi: Double?, roas: Double?)] = [:]
        for row in try connection.query("""
            select network, campaign, country, spend::float8, paid_installs::int, cpi::float8, roas_d7 from fct_campaigns
            where campaign <> 'all'
            """) {
            stored[[try row.decode(String.self, at: 0), try row.decode(String.self, at: 1), try row.decode(String.self, at: 2)]] =
                (try row.decode(Double.self, at: 3), try row.decode(Int.self, at: 4), try row.decode(Double?.self, at: 5),
                 try row.decode(Double?.self, at: 6))
        }
        let paidKeys = figures.filter { $0.value.spend > 0 }.keys.sorted { $0.joined(separator: "|") < $1.joined(separator: "|") }
        #expect(paidKeys.filter { $0[2] == "all" }.count >= 5)
        var compared = 0
        for key in paidKeys {
            let expected = figures[key]!
            guard let row = stored[key] else {
                Issue.record("no fct_campaigns row for \(key)")
                continue
            }
            #expect(abs(row.spend - expected.spend) < 1e-4, "spend of \(key)")
            #expect(row.paid == expected.paidInstalls, "paid installs of \(key)")
            let cpi = expected.paidInstalls > 0 ? expected.spend / Double(expected.paidInstalls) : nil
            #expect(row.cpi.map { c in cpi.map { abs(c - $0) < 1e-6 * $0 } ?? false } ?? (cpi == nil), "CPI of \(key)")
            var roas = 0.0
            var defined = true
            for m in 0...7 {
                let mature = expected.cohortSpend.keys.filter { $0 + m <= dataThrough }
                let spend = mature.reduce(0) { $0 + expected.cohortSpend[$1]! }
                guard spend > 0 else { defined = false; break }
                roas += mature.reduce(0) { $0 + (expected.cohortRevenue[$1]?[m] ?? 0) } / spend
            }
            if defined, let stored = row.roas {
                #expect(abs(stored - roas) < 1e-6 + 1e-6 * roas, "ROAS D7 of \(key): \(stored) vs \(roas)")
                compared += 1
            } else {
                #expect(!defined && row.roas == nil, "ROAS D7 of \(key) defined on one side only")
            }
        }
        #expect(compared >= 20)
        // The network rows against the generator's truth (realised paid installs and CPI), and
        // each network's campaigns sum to it.
        for network in truth.networks where network.kind == "paid" {
            let row = try connection.query("""
                select paid_installs::int, cpi::float8, spend::float8,
                       (select sum(spend)::float8 from fct_campaigns c
                        where c.network = n.network and c.campaign <> 'all' and c.country = 'all')
                from fct_campaigns n where network = $1 and campaign = 'all' and country = 'all'
                """, [network.network])[0]
            #expect(try row.decode(Int.self, at: 0) == network.realised.paidInstalls, "\(network.network)")
            let cpi = try #require(network.realised.cpi)
            #expect(abs(try row.decode(Double.self, at: 1) - cpi) < 1e-6 * cpi, "\(network.network)")
            #expect(abs(try row.decode(Double.self, at: 2) - row.decode(Double.self, at: 3)) < 1e-6, "\(network.network)")
        }
        // Every campaign row's chained curve never falls without refunds in the data.
        let falls = try connection.query("""
            select count(*)::int from fct_campaigns where ltv_d30 < ltv_d7 or roas_d30 < roas_d7
            """).scalar(Int.self)
        #expect(falls == 0)
        // Pooled: every campaign below its network has a weight in [0, 1] and an LTV_D180 inside its interval.
        let pooled = try connection.query("""
            select count(*)::int, count(*) filter (where pooling_weight between 0 and 1
                                                   and ltv_d180_low <= ltv_projected_d180
                                                   and ltv_projected_d180 <= ltv_d180_high)::int
            from fct_campaigns where campaign <> 'all' and country = 'all' and ltv_projected_d180 is not null
            """)[0]
        #expect(try pooled.decode(Int.self, at: 0) > 0)
        #expect(try pooled.decode(Int.self, at: 0) == pooled.decode(Int.self, at: 1))
        let verdicts = try connection.query("""
            select count(*)::int from fct_campaigns
            where verdict not in ('scale', 'hold', 'trim', 'cut', 'not enough data', 'n/a') or (verdict <> 'n/a' and reason = '')
            """).scalar(Int.self)
        #expect(verdicts == 0)
    }

    /// A campaign's spend stated without a country, its installs in two countries: the spend and
    /// the installs meet in one cell (country ''), in fct_cpi and fct_campaigns alike.
    @Test("spend stated without a country meets every country's installs in one cell")
    func spendWithoutCountry() throws {
        let f = try ComputeFixture()
        for (index, country) in ["BR", "BR", "US"].enumerated() {
            try f.install("u\(index)", "2024-05-01T10:00:00Z", network: "meta", campaign: "eu_broad", country: country)
        }
        try f.install("v1", "2024-05-01T11:00:00Z", network: "meta", campaign: "us_lookalike", country: "US")
        try f.spend("2024-05-01", network: "meta", spend: 30, campaign: "eu_broad")
        try f.spend("2024-05-01", network: "meta", spend: 8, campaign: "us_lookalike", country: "US")
        try f.purchase("u0", "2024-05-02T10:00:00Z", revenue: 6)
        try f.open("u1", "2024-05-09T10:00:00Z")
        try f.compute(full: true)
        let cells = try f.connection.query("""
            select concat_ws('|', network, campaign, country, spend::float8, installs, paid_installs, cpi::float8)
            from fct_cpi where network <> 'all' and campaign <> 'all' order by 1
            """).map { try $0.decode(String.self, at: 0) }
        #expect(cells == ["meta|eu_broad||30|3|3|10", "meta|us_lookalike|US|8|1|1|8"], "\(cells)")
        let row = try f.connection.query("""
            select spend::float8, paid_installs::int, cpi::float8, roas_d7, ltv_d7::float8 from fct_campaigns
            where network = 'meta' and campaign = 'eu_broad' and country = ''
            """)[0]
        #expect(try row.decode(Double.self, at: 0) == 30)
        #expect(try row.decode(Int.self, at: 1) == 3)
        #expect(try row.decode(Double.self, at: 2) == 10)
        #expect(abs(try row.decode(Double.self, at: 3) - 6.0 / 30) < 1e-9)
        #expect(abs(try row.decode(Double.self, at: 4) - 2) < 1e-9)
        #expect(try f.int("select count(*)::int from fct_campaigns where campaign = 'eu_broad' and country in ('BR', 'US')") == 0)
    }
}
