import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import PostgresClient
import Testing
import TestSupport

@Suite("Spend response (compute)")
struct SpendResponseComputeTests {
    /// netx: 20 days from 2024-03-04 (a Monday), spend alternating $100 and $400 with 20 and 40
    /// paid installs (installs = 2 * spend^0.5), from day 10 split 60/40 with a campaign that starts
    /// then, two more days with installs and no spend, and one day first stated at $900 then
    /// restated to its true $400. shorty: 10 days of spend.
    /// By hand for netx: b = 0.5; the current spend is the mean of the last 14 days with spend,
    /// 7 * 100 + 7 * 400 over 14 = $250; the average CPI over them 3500 / 420 = $8.333...; the marginal
    /// CPI 250^0.5 / (2 * 0.5) = $15.81; no revenue, so no LTV and no headroom.
    @Test("a hand-computed curve through compute, with restated and zero-spend days and a campaign starting mid-history; short history has no numbers")
    func handComputed() throws {
        let f = try ComputeFixture()
        let start = Date(timeIntervalSince1970: 1_709_510_400) // 2024-03-04
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        func date(_ day: Int) -> String { formatter.string(from: start.addingTimeInterval(Double(day) * 86_400)) }
        for day in 0..<22 {
            let installs = day >= 20 ? 5 : day % 2 == 0 ? 20 : 40
            // From day 10 a second campaign takes 40% of the spend and of the installs: the curve
            // is the network's, over its campaigns.
            let late = day >= 10 && day < 20 ? installs * 2 / 5 : 0
            try f.connection.query("""
                insert into raw_installs (event_id, app_id, user_id, installed_at, network, campaign, file_id)
                select 'x' || $1 || '-' || n, $2, 'x' || $1 || '-' || n, $3::date + time '12:00', 'netx',
                       case when n <= $5 then 'late' else '' end, 0
                from generate_series(1, $4) n
                """, [day, f.app, date(day), installs, late])
            if day < 20 {
                let spend: Double = day == 5 ? 900 : day % 2 == 0 ? 100 : 400
                if late > 0 {
                    try f.spend(date(day), network: "netx", spend: spend * 0.6)
                    try f.spend(date(day), network: "netx", spend: spend * 0.4, campaign: "late")
                } else {
                    try f.spend(date(day), network: "netx", spend: spend)
                }
            }
            if day < 10 {
                try f.connection.query("""
                    insert into raw_installs (event_id, app_id, user_id, installed_at, network, file_id)
                    select 's' || $1 || '-' || n, $2, 's' || $1 || '-' || n, $3::date + time '12:00', 'shorty', 0
                    from generate_series(1, 10 + $1) n
                    """, [day, f.app, date(day)])
                try f.spend(date(day), network: "shorty", spend: Double(50 + 20 * day))
            }
        }
        try f.spend(date(5), network: "netx", spend: 400)
        try f.compute(full: true)

        let row = try f.connection.query("""
            select status, days, exponent_b, current_spend::float8, average_cpi::float8, marginal_cpi::float8,
                   headroom_spend, ltv_d180, inflated_days, advice
            from fct_spend_response where network = 'netx'
            """)[0]
        #expect(try row.decode(String.self, at: 0) == "fitted")
        #expect(try row.decode(Int.self, at: 1) == 20)
        #expect(abs(try row.decode(Double.self, at: 2) - 0.5) < 1e-6)
        #expect(abs(try row.decode(Double.self, at: 3) - 250) < 1e-6)
        #expect(abs(try row.decode(Double.self, at: 4) - 3500.0 / 420) < 1e-5)
        #expect(abs(try row.decode(Double.self, at: 5) - sqrt(250.0)) < 1e-5)
        #expect(try row.decode(Double?.self, at: 6) == nil)
        #expect(try row.decode(Double?.self, at: 7) == nil)
        #expect(try row.decode(Int.self, at: 8) == 0)
        #expect(try row.decode(String.self, at: 9).contains("no projected LTV_D180"))

        let short = try f.connection.query("""
            select status, exponent_b, marginal_cpi, headroom_spend, saturated, advice
            from fct_spend_response where network = 'shorty'
            """)[0]
        #expect(try short.decode(String.self, at: 0) == "not enough spend history")
        #expect(try short.decode(Double?.self, at: 1) == nil)
        #expect(try short.decode(Double?.self, at: 2) == nil)
        #expect(try short.decode(Double?.self, at: 3) == nil)
        #expect(try short.decode(Bool?.self, at: 4) == nil)
        #expect(try short.decode(String.self, at: 5).contains("10 days"))
        #expect(try f.int("select count(*)::int from fct_spend_response where network in ('organic', 'all')") == 0)
        #expect(try f.int("select count(*)::int from dash_spend_response") == 2)
        #expect(try f.int("select count(*)::int from dash_cpi_weekday where network = 'netx'") == 7)
    }

    /// 20,000 users over 60 days (seed 35): the generator plants installs = a * spend^b per paid
    /// network (b 0.5-0.7, vistamob 1) and three peak days at 2.5x the CPI (truth.json). Tolerances:
    /// b within 0.08 of the planted exponent; the saturation flag on exactly the networks with
    /// b < 0.77; where a headroom is reported, the planted curve's marginal CPI there within 20%
    /// of the LTV it was set against; the planted peak days found with their excess cost within
    /// 15%, and no other day.
    @Test("planted response curves, headroom and peak days are recovered from generated data")
    func plantedRecovery() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "spend-response").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let truth = try Generator.run(GeneratorOptions(outputDirectory: directory, users: 20_000, days: 60, seed: 35)).truth
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: directory, settings: settings)
        guard try ComputeEngine(configuration: FunnelConfiguration())
            .run(connection, options: ComputeOptions(full: true, waitForLock: true)) != nil else {
            throw ComputeError("compute lock was busy")
        }
        #expect(truth.spendResponse.count == 5)
        #expect(truth.inflatedDays.count == 3)
        for planted in truth.spendResponse {
            let rows = try connection.query("""
                select status, exponent_b, exponent_b_low, exponent_b_high, saturated, headroom_spend::float8,
                       ltv_d180::float8, advice
                from fct_spend_response where network = $1
                """, [planted.network])
            let row = try #require(rows.rows.first, "\(planted.network) has no row")
            #expect(try row.decode(String.self, at: 0) == "fitted", "\(planted.network)")
            let b = try #require(try row.decode(Double?.self, at: 1))
            #expect(abs(b - planted.exponentB) < 0.08, "\(planted.network): b \(b) vs planted \(planted.exponentB)")
            #expect(try row.decode(Bool?.self, at: 4) == (planted.exponentB < 1 / SpendResponse.saturationRatio),
                    "\(planted.network) saturation flag")
            if let headroom = try row.decode(Double?.self, at: 5), let ltv = try row.decode(Double?.self, at: 6) {
                let b = planted.exponentB
                let marginal = pow(headroom, 1 - b) / (planted.scaleA * b)
                #expect(abs(marginal / ltv - 1) < 0.2,
                        "\(planted.network): planted marginal CPI \(marginal) at the headroom vs LTV \(ltv)")
            }
        }
        var found: [String: Double] = [:]
        for row in try connection.query("select network, date::text, excess_cost::float8 from fct_cpi_inflated_days") {
            found[try row.decode(String.self, at: 0) + " " + (try row.decode(String.self, at: 1))] = try row.decode(Double.self, at: 2)
        }
        let planted = Dictionary(uniqueKeysWithValues: truth.inflatedDays.map { ($0.network + " " + $0.date, $0.excessCostUsd) })
        #expect(Set(found.keys) == Set(planted.keys), "found \(found.keys.sorted()) vs planted \(planted.keys.sorted())")
        for (key, excess) in planted {
            if let measured = found[key] {
                #expect(abs(measured / excess - 1) < 0.15, "\(key): excess \(measured) vs planted \(excess)")
            }
        }
    }
}
