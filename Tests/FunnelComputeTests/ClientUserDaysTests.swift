import FunnelBench
@testable import FunnelCompute
import FunnelCore
import Logging
import PostgresClient
import Testing
import TestSupport

/// A rebuild of the whole history sums the users' days in the client (`UserDaysTable`); any other
/// rebuild runs the server's statements (`scope_user_days.sql`, `scope_user_activity.sql`,
/// `int_cohort_day_rollup.sql`). Both must give the same facts, rollups and marts.
@Suite("The users' days summed in the client")
struct ClientUserDaysTests {
    @Test("a whole-history rebuild gives what a rebuild of every cohort by the server's statements gives, under both day rules, time zones and a revenue share",
          arguments: [("UTC", DayRule.calendar, 1.0), ("America/Los_Angeles", .calendar, 0.7), ("Asia/Kolkata", .hours24, 0.3)])
    func clientEqualsServer(timeZone: String, dayRule: DayRule, share: Double) throws {
        let f = try ComputeFixture()
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 20, seed: 3)
        // Edges: an open before the install (not counted), events at the install moment and at
        // local midnights, a retention row on a day without an open, revenue in another currency,
        // a purchase of nothing, invites inside and outside the k-factor window, a day past max_day.
        try f.install("edge", "2024-03-05T07:59:59Z", network: "adnet", campaign: "c\tab", country: "DE", platform: "ios")
        try f.open("edge", "2024-03-05T07:00:00Z")
        try f.open("edge", "2024-03-05T07:59:59Z")
        try f.open("edge", "2024-03-06T08:00:00Z")
        try f.open("edge", "2024-03-06T07:59:59.5Z")
        try f.retention("edge", day: 4, "2024-03-09T12:00:00Z")
        try f.purchase("edge", "2024-03-05T07:59:59Z", revenue: 4.99, currency: "EUR")
        try f.purchase("edge", "2024-03-07T18:30:00Z", revenue: 0)
        try f.purchase("edge", "2024-03-07T18:31:00Z", revenue: 1.333333)
        try f.purchase("edge", "2024-05-01T10:00:00Z", revenue: 2.5)
        try f.invite("edge", "i-edge-1", "2024-03-06T10:00:00Z")
        try f.invite("edge", "i-edge-2", "2024-04-20T10:00:00Z")
        var config = FunnelConfiguration()
        config.timeZone = timeZone
        config.dayRule = dayRule
        config.revenueShare = share
        config.maxDay = 30
        config.kFactorWindowDays = 10
        try f.compute(config, full: true)
        let tables = ["int_user_facts", "int_cohort_rollup", "int_cohort_day_rollup", "int_network_day_rollup",
                      "int_cohort_bracket_rollup", "fct_retention", "fct_ltv", "fct_kfactor", "fct_regular_users",
                      "int_funnel_points", "(select app_id, data_through_date from compute_state)"]
        var client: [String: [String]] = [:]
        for table in tables {
            client[table] = try f.snapshot(table)
            #expect(client[table]?.isEmpty == false, "\(table) is empty, so comparing it would prove nothing")
        }
        #expect(try f.int("select count(*) from int_cohort_day_rollup where revenue_usd > 0 and day_n > 0") ?? 0 > 10)
        #expect(try f.int("select count(*) from int_cohort_day_rollup where new_payers > 0") ?? 0 > 10)
        #expect(try f.int("select count(*) from int_user_facts where cardinality(regular_open_times) > 1") ?? 0 > 10)
        // Every cohort again, by a range: the server's statements.
        let range = ComputeOptions(full: true, from: PostgresDate(year: 2024, month: 1, day: 1), to: PostgresDate(year: 2024, month: 12, day: 31))
        _ = try #require(try ComputeEngine(configuration: config).run(f.connection, options: range))
        for table in tables {
            #expect(try f.snapshot(table) == client[table], "\(table) differs between the client's sums and the server's")
        }
        // The whole history by the server's statements, as for a history over the client's bound.
        let log = NoticeLog()
        var server = ComputeEngine(configuration: config, logger: Logger(label: "server-days") { _ in log })
        server.clientEventLimit = -1 // below any estimate, even a never analyzed table's 0
        _ = try #require(try server.run(f.connection, options: ComputeOptions(full: true)))
        #expect(log.messages.contains { $0.contains("compute.step=int_scope_user_days") }, "the server's statements ran")
        #expect(!log.messages.contains { $0.contains("compute.step=user_days_read") })
        #expect(try f.int("select count(*) from compute_runs where mode = 'full'") == 3)
        for table in tables {
            #expect(try f.snapshot(table) == client[table], "\(table) differs between the client's whole-history sums and the server's")
        }
    }

    @Test("revenue text reads as micro-units and writes back with six places; times write as the server reads them")
    func textRoundTrips() throws {
        #expect(try UserDaysTable.micros("12.345678") == 12_345_678)
        #expect(try UserDaysTable.micros("-0.500000") == -500_000)
        #expect(try UserDaysTable.micros("7") == 7_000_000)
        #expect(throws: UserDaysError.self) { try UserDaysTable.micros("1.2345678") }
        #expect(throws: UserDaysError.self) { try UserDaysTable.micros("1e5") }
        var text: [UInt8] = []
        UserDaysTable.appendMicros(-500_000, to: &text)
        text.append(UInt8(ascii: " "))
        UserDaysTable.appendMicros(12_000_001, to: &text)
        #expect(String(decoding: text, as: UTF8.self) == "-0.500000 12.000001")
        let f = try ComputeFixture()
        for micros: Int64 in [0, 1, -1, 1_709_625_599_500_000, -86_400_000_001, 253_402_300_799_999_999] {
            var bytes: [UInt8] = []
            CopyText.appendTimestamp(micros: micros, to: &bytes)
            let timestamp = String(decoding: bytes, as: UTF8.self)
            let back = try f.connection.query("select (extract(epoch from $1::timestamptz) * 1000000)::bigint", [timestamp]).scalar(Int64.self)
            #expect(back == micros, "\(timestamp)")
        }
    }
}
