import FunnelCompute
import FunnelCore
import Testing

@Suite("Retention")
struct RetentionTests {
    /// Cohort 2024-03-01 (10:00 UTC): a, b, c. a opens on 03-02 (day 1) and 03-04 (day 3); b opens
    /// on 03-02 (day 1) and reinstalls on 03-03; c never returns. Cohort 03-04: x, who opens on
    /// 03-05. The last date with data is 03-05, so cohort 03-01 is mature through day 4.
    private func fixture() throws -> ComputeFixture {
        let f = try ComputeFixture()
        for user in ["a", "b", "c"] { try f.install(user, "2024-03-01T10:00:00Z", network: "adnova") }
        try f.open("a", "2024-03-02T09:00:00Z")
        try f.open("a", "2024-03-04T09:00:00Z")
        try f.open("b", "2024-03-02T11:00:00Z")
        try f.install("b", "2024-03-03T08:00:00Z", network: "pixelreach")
        try f.install("x", "2024-03-04T10:00:00Z")
        try f.open("x", "2024-03-05T10:00:00Z")
        try f.markDirty("2024-03-01", "2024-03-04")
        return f
    }

    private func cell(_ f: ComputeFixture, _ mode: String, _ cohort: String, _ day: Int, network: String = "all") throws -> Double? {
        try f.double("select rate from fct_retention where mode = $1 and cohort_date = $2::date and day = $3 and network = $4",
                     [mode, cohort, day, network])
    }

    @Test("classic day-N retention is active users on day N over cohort size; a mature empty day is 0")
    func classicTriangle() throws {
        let f = try fixture()
        try f.compute()
        // Day 1: a and b of 3 = 2/3; day 2: nobody = 0; day 3: a = 1/3; day 4: 0 (mature, 03-05).
        #expect(try cell(f, "classic", "2024-03-01", 0) == 1)
        #expect(try cell(f, "classic", "2024-03-01", 1) == 2.0 / 3)
        #expect(try cell(f, "classic", "2024-03-01", 2) == 0)
        #expect(try cell(f, "classic", "2024-03-01", 3) == 1.0 / 3)
        #expect(try cell(f, "classic", "2024-03-01", 4) == 0)
        #expect(try cell(f, "classic", "2024-03-04", 1) == 1)
    }

    @Test("rolling day-N retention counts users active on day N or later")
    func rollingTriangle() throws {
        let f = try fixture()
        try f.compute()
        // Last active days: a 3, b 1, c 0. Rolling day 1 = {a, b} = 2/3; day 2 and 3 = {a} = 1/3; day 4 = 0.
        #expect(try cell(f, "rolling", "2024-03-01", 1) == 2.0 / 3)
        #expect(try cell(f, "rolling", "2024-03-01", 2) == 1.0 / 3)
        #expect(try cell(f, "rolling", "2024-03-01", 3) == 1.0 / 3)
        #expect(try cell(f, "rolling", "2024-03-01", 4) == 0)
    }

    @Test("immature cohort days are missing, never 0")
    func immatureCellsAreMissing() throws {
        let f = try fixture()
        try f.compute()
        // 03-01 + 5 = 03-06 is after the last data date 03-05; 03-04 + 2 likewise.
        #expect(try f.int("select count(*) from fct_retention where cohort_date = '2024-03-01' and day >= 5") == 0)
        #expect(try f.int("select count(*) from fct_retention where cohort_date = '2024-03-04' and day >= 2") == 0)
        #expect(try cell(f, "classic", "2024-03-01", 5) == nil)
    }

    @Test("a reinstall does not make a new cohort member and keeps the first install's attribution")
    func reinstallsAreNotNewUsers() throws {
        let f = try fixture()
        try f.compute()
        #expect(try f.int("select cohort_size from fct_retention where cohort_date = '2024-03-01' and network = 'all' and day = 0 and mode = 'classic'") == 3)
        #expect(try f.int("select installs from int_user_facts where user_id = 'b'") == 2)
        #expect(try f.int("select count(*) from int_user_facts where network = 'pixelreach'") == 0)
        #expect(try f.int("select reinstalls from int_cohort_rollup where cohort_date = '2024-03-01'") == 1)
    }

    @Test("D1 summary and bracket retention over mature cohorts")
    func summaryAndBrackets() throws {
        let f = try fixture()
        try f.compute()
        // D1 over cohorts 03-01 (2 of 3) and 03-04 (1 of 1) = 3/4. D3: only 03-01 is mature: 1/3.
        #expect(try f.double("select rate from fct_retention_summary where mode = 'classic' and network = 'all' and day = 1") == 0.75)
        #expect(try f.double("select rate from fct_retention_summary where mode = 'classic' and network = 'all' and day = 3") == 1.0 / 3)
        // Bracket 1-3 is mature only for 03-01: a and b were active on days 1..3 = 2/3. 4-7 is immature.
        #expect(try f.double("select rate from fct_retention_brackets where network = 'all' and bracket = '1-3'") == 2.0 / 3)
        #expect(try f.int("select count(*) from fct_retention_brackets where bracket = '4-7'") == 0)
    }

    @Test("an attribution partner's retention row counts as activity on its day")
    func retentionRowsCountAsActive() throws {
        let f = try fixture()
        try f.retention("c", day: 2, "2024-03-03T23:00:00Z")
        try f.markDirty("2024-03-01")
        try f.compute()
        #expect(try cell(f, "classic", "2024-03-01", 2) == 1.0 / 3)
    }

    @Test("an install at 23:30 UTC belongs to the next day's cohort in Asia/Tokyo")
    func timeZoneMovesTheCohortDate() throws {
        let f = try ComputeFixture()
        try f.install("t", "2024-03-01T23:30:00Z")
        try f.open("t", "2024-03-02T16:00:00Z") // 03-03 01:00 in Tokyo: day 1 there, day 1 in UTC too
        try f.markDirty("2024-03-01")
        var tokyo = FunnelConfiguration()
        tokyo.timeZone = "Asia/Tokyo"
        try f.compute(tokyo)
        #expect(try f.int("select count(*) from int_user_facts where cohort_date = '2024-03-02'") == 1)
        #expect(try f.double("select rate from fct_retention where mode = 'classic' and cohort_date = '2024-03-02' and day = 1 and network = 'all'") == 1)
        try f.compute(FunnelConfiguration())
        #expect(try f.int("select count(*) from int_user_facts where cohort_date = '2024-03-01'") == 1)
    }

    @Test("calendar days and 24-hour periods number the same open differently")
    func dayRulesDiffer() throws {
        let f = try ComputeFixture()
        try f.install("u", "2024-03-01T22:00:00Z")
        try f.open("u", "2024-03-02T10:00:00Z") // 12 h later: calendar day 1, 24-hour day 0
        try f.open("u", "2024-03-05T10:00:00Z") // 3.5 days later: calendar day 4, 24-hour day 3
        try f.markDirty("2024-03-01")
        try f.compute()
        #expect(try cell(f, "classic", "2024-03-01", 1) == 1)
        #expect(try cell(f, "classic", "2024-03-01", 4) == 1)
        var hours = FunnelConfiguration()
        hours.dayRule = .hours24
        let summary = try f.compute(hours)
        #expect(summary.configurationChanged)
        #expect(try cell(f, "classic", "2024-03-01", 1) == 0)
        #expect(try cell(f, "classic", "2024-03-01", 3) == 1)
        // Under 24-hour periods day 4 of a 22:00 install ends on 03-06 22:00, after the data: missing.
        #expect(try cell(f, "classic", "2024-03-01", 4) == nil)
    }
}
