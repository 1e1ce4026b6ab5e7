import Foundation
@testable import FunnelCompute
import FunnelCore
import FunnelIngest
import Logging
import PostgresClient
import Testing
import TestSupport

/// Files loaded by the real loader, one after another, each followed by an incremental compute
/// that must leave every derived table as a full rebuild of the same rows would. The loader marks
/// nothing: compute finds each file's rows by file_id and folds them in.
@Suite("Incremental compute over files loaded by the real loader")
struct LoadedFilesIncrementalTests {
    static let marts = ["int_user_facts", "int_user_funnel_steps", "int_cohort_rollup", "int_cohort_day_rollup",
                        "int_cohort_bracket_rollup", "int_spend_day_rollup", "fct_funnel", "fct_funnel_top",
                        "fct_retention", "fct_retention_summary", "fct_retention_brackets", "fct_regular_users",
                        "fct_ltv", "fct_ltv_models", "fct_cpi", "fct_kfactor", "fct_networks",
                        "int_network_day_rollup", "int_funnel_points", "int_funnel_medians"]

    final class Loaded {
        let fixture: ComputeFixture
        let directory: URL
        let configuration: FunnelConfiguration
        private var files = 0

        init(configuration: FunnelConfiguration) throws {
            fixture = try ComputeFixture()
            directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-loaded")
            self.configuration = configuration
        }

        /// Writes one CSV file named for its kind and loads it through `IngestRun`.
        func load(_ kind: String, _ header: String, _ rows: [String]) throws {
            files += 1
            let url = directory.appending(path: "\(kind)-\(files).csv")
            try ([header] + rows).joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
            var logger = Logger(label: "test.ingest")
            logger.logLevel = .critical
            let reports = try IngestRun(settings: fixture.settings, kind: nil, assumeTimeZone: nil, workers: 1)
                .run(files: [url.path], stop: StopFlag(), progress: IngestProgress(), logger: logger)
            #expect(reports.map(\.status) == [.loaded], "\(url.lastPathComponent) did not load")
        }

        /// The incremental compute, then a full rebuild: every derived table must be the same.
        @discardableResult
        func computeMatchesFull(_ comment: Comment) throws -> ComputeSummary {
            let incremental = try fixture.compute(configuration)
            #expect(incremental.mode == "incremental")
            #expect(incremental.failedChecks.isEmpty, comment)
            #expect(try fixture.int("select count(*) from dirty_cohort_days") == 0)
            var before: [String: [String]] = [:]
            for mart in LoadedFilesIncrementalTests.marts { before[mart] = try fixture.snapshot(mart) }
            // The tables every scenario fills: empty ones would compare equal and prove nothing.
            for mart in ["int_user_facts", "int_cohort_rollup", "int_cohort_day_rollup", "fct_retention"] {
                #expect(before[mart]?.isEmpty == false, "\(mart) is empty: \(comment)")
            }
            try fixture.compute(configuration, full: true)
            for mart in LoadedFilesIncrementalTests.marts {
                #expect(try fixture.snapshot(mart) == before[mart], "\(mart) differs from a full rebuild: \(comment)")
            }
            return incremental
        }
    }

    static let installs = "event_id,app_id,user_id,installed_at,network,platform,country,campaign,referrer_user_id,invite_id"
    static let opens = "event_id,app_id,user_id,opened_at"
    static let purchases = "event_id,app_id,user_id,purchased_at,revenue,currency"
    static let invites = "event_id,app_id,user_id,invite_id,sent_at"
    static let retention = "event_id,app_id,user_id,day,reported_at"
    static let steps = "event_id,app_id,user_id,occurred_at,step"
    static let spend = "app_id,date,network,spend,campaign,country,currency,impressions,clicks"

    @Test("late events, events waiting for their install, a user moved by an earlier install, restated spend")
    func loadedFilesFoldLikeAFullRebuild() throws {
        var config = FunnelConfiguration()
        config.funnels = [FunnelDefinition(name: "buyers", steps: ["open", "purchase"], order: .ordered, windowDays: 30)]
        let l = try Loaded(configuration: config)
        let f = l.fixture

        // Three cohorts, their first days of activity, and spend.
        try l.load("installs", Self.installs, [
            "i1,app,u1,2024-03-01T23:30:00Z,adnova,ios,US,c1,,",
            "i2,app,u2,2024-03-03T10:00:00Z,organic,android,DE,,,",
            "i3,app,u3,2024-03-02T08:00:00Z,pixelreach,ios,FR,c2,,",
            "i4,app,u4,2024-03-02T09:00:00Z,adnova,android,US,c1,,",
        ])
        try l.load("opens", Self.opens, [
            "o1,app,u1,2024-03-01T23:40:00Z", "o2,app,u1,2024-03-02T12:00:00Z", "o3,app,u1,2024-03-03T12:00:00Z",
            "o4,app,u1,2024-03-04T12:00:00Z", "o5,app,u2,2024-03-04T10:00:00Z", "o6,app,u3,2024-03-02T09:00:00Z",
            "o7,app,u4,2024-03-03T09:00:00Z",
        ])
        try l.load("steps", Self.steps, ["s1,app,u1,2024-03-02T00:10:00Z,onboarding_complete"])
        try l.load("purchases", Self.purchases, ["p1,app,u1,2024-03-05T10:00:00Z,4.99,USD"])
        try l.load("ad_spend", Self.spend, [
            "app,2024-03-01,adnova,100,c1,US,USD,10000,300", "app,2024-03-02,adnova,80,c1,US,USD,8000,250",
            "app,2024-03-02,pixelreach,50,c2,FR,EUR,5000,100",
        ])
        let first = try l.computeMatchesFull("the first days")
        #expect(first.usersRebuilt == 4)

        // A later day: old users come back (one buys for the first time, late in the purchase
        // window; one sends an invite), a partner's retention row, events of a user whose install
        // has not arrived, and a new install.
        try l.load("opens", Self.opens, [
            "o8,app,u1,2024-03-12T12:00:00Z", "o9,app,u3,2024-03-12T13:00:00Z", "o10,app,ghost,2024-03-12T14:00:00Z",
            "o11,app,u4,2024-03-12T09:00:00Z",
        ])
        try l.load("purchases", Self.purchases, [
            "p2,app,u3,2024-03-12T13:05:00Z,9.99,EUR", "p3,app,u1,2024-03-12T12:05:00Z,1.99,USD",
            "p4,app,ghost,2024-03-12T14:05:00Z,2.99,USD",
        ])
        try l.load("invites", Self.invites, ["v1,app,u4,inv4,2024-03-12T09:05:00Z"])
        try l.load("retention", Self.retention, ["r1,app,u2,9,2024-03-12T23:00:00Z"])
        try l.load("installs", Self.installs, ["i5,app,u5,2024-03-12T07:00:00Z,organic,ios,US,,,"])
        let later = try l.computeMatchesFull("a later day")
        #expect(later.usersRebuilt >= 4)
        #expect(try f.int("select count(*) from int_user_facts where user_id = 'ghost'") == 0)
        #expect(try f.int("select last_active_day from int_user_facts where user_id = 'u3'") == 10)
        #expect(try f.int("select first_purchase_day from int_user_facts where user_id = 'u3'") == 10)

        // The ghost's install arrives (its waiting events count now); the invitee of u4's invite;
        // u2's earlier install on another network moves u2 to an earlier cohort; a late open on u4's
        // day 2 (inside the regular-user window); and a network restates its spend.
        try l.load("installs", Self.installs, [
            "i6,app,ghost,2024-03-11T20:00:00Z,adnova,ios,US,c1,,",
            "i7,app,u6,2024-03-12T18:00:00Z,adnova,ios,US,,u4,inv4",
            "i8,app,u2,2024-02-28T10:00:00Z,pixelreach,android,DE,c2,,",
        ])
        try l.load("opens", Self.opens, ["o12,app,u4,2024-03-04T09:00:00Z", "o13,app,u4,2024-03-05T09:00:00Z"])
        try l.load("ad_spend", Self.spend, ["app,2024-03-02,adnova,90,c1,US,USD,8000,260"])
        try l.computeMatchesFull("installs that arrive late")
        // The install day, then the day of its waiting open and purchase.
        #expect(try f.string("select active_days::text || ' ' || purchase_days::text from int_user_facts where user_id = 'ghost'")
            == "{0,1} {1}")
        #expect(try f.string("select cohort_date::text || ' ' || network from int_user_facts where user_id = 'u2'")
            == "2024-02-28 pixelreach")
        #expect(try f.int("select regular_opens from int_user_facts where user_id = 'u4'") == 3)
        #expect(try f.double("select sum(spend_usd)::float8 from int_spend_day_rollup where spend_date = '2024-03-02' and network = 'adnova'") == 90)

        // Delivered again: nothing new, nothing changes.
        try l.load("opens", Self.opens, ["o8,app,u1,2024-03-12T12:00:00Z"])
        let again = try l.fixture.compute(config)
        #expect(again.usersRebuilt == 0)
    }

    @Test("reinstalls of known users are folded in: their cohorts are not rebuilt, their attribution stays")
    func reinstallsFoldWithoutRebuildingCohorts() throws {
        let l = try Loaded(configuration: FunnelConfiguration())
        let f = l.fixture
        try l.load("installs", Self.installs, [
            "i1,app,u1,2024-03-01T10:00:00Z,adnova,ios,US,c1,,",
            "i2,app,u2,2024-03-02T10:00:00Z,organic,android,DE,,,",
            "i3,app,u3,2024-03-03T10:00:00Z,pixelreach,ios,FR,c2,,",
        ])
        try l.load("opens", Self.opens, [
            "o1,app,u1,2024-03-01T10:10:00Z", "o2,app,u2,2024-03-02T10:10:00Z", "o3,app,u3,2024-03-03T10:10:00Z",
            "o4,app,u3,2024-03-04T10:10:00Z",
        ])
        // The app has onboarding rows from the start (their first arrival would rebuild everything).
        try l.load("steps", Self.steps, ["s0,app,u1,2024-03-01T10:20:00Z,onboarding_complete"])
        try l.computeMatchesFull("three cohorts")

        // Every known user installs again on a later day, one on another network; u2 also comes
        // back, u3 finishes onboarding (its facts take the general path); a new user arrives.
        try l.load("installs", Self.installs, [
            "i4,app,u1,2024-03-12T08:00:00Z,pixelreach,android,FR,c9,,",
            "i5,app,u2,2024-03-12T09:00:00Z,organic,android,DE,,,",
            "i6,app,u3,2024-03-12T09:30:00Z,pixelreach,ios,FR,c2,,",
            "i7,app,u4,2024-03-12T11:00:00Z,adnova,ios,US,c1,,",
        ])
        try l.load("opens", Self.opens, ["o5,app,u2,2024-03-12T09:05:00Z"])
        try l.load("steps", Self.steps, ["s1,app,u3,2024-03-04T10:20:00Z,onboarding_complete"])
        let later = try l.computeMatchesFull("reinstalls beside a new cohort")
        #expect(later.cohortDaysRebuilt == 1, "only the new user's cohort is rebuilt, not the reinstallers'")
        #expect(try f.snapshot("(select user_id, installs, network, cohort_date from int_user_facts order by user_id)") == [
            "(u1,2,adnova,2024-03-01)", "(u2,2,organic,2024-03-02)", "(u3,2,pixelreach,2024-03-03)",
            "(u4,1,adnova,2024-03-12)",
        ])
        #expect(try f.int("select sum(reinstalls) from int_cohort_rollup") == 3)
        #expect(try f.int("select installs from int_cohort_rollup where cohort_date = '2024-03-01'") == 1)

        // Reinstalls alone: nothing is rebuilt, the users are folded.
        try l.load("installs", Self.installs, ["i8,app,u1,2024-03-13T08:00:00Z,adnova,ios,US,c1,,"])
        let reinstallOnly = try l.computeMatchesFull("a reinstall alone")
        #expect(reinstallOnly.cohortDaysRebuilt == 0)
        #expect(reinstallOnly.usersRebuilt == 1)
        #expect(try f.int("select installs from int_user_facts where user_id = 'u1'") == 3)
    }

    @Test("a later file adds to a day already stored for a user folded in closed form")
    func laterRowsOnAStoredDay() throws {
        let l = try Loaded(configuration: FunnelConfiguration())
        let f = l.fixture
        try l.load("installs", Self.installs, ["i1,app,u1,2024-03-01T10:00:00Z,adnova,ios,US,c1,,"])
        try l.load("opens", Self.opens, [
            "o1,app,u1,2024-03-02T10:00:00Z", "o2,app,u1,2024-03-03T10:00:00Z", "o3,app,u1,2024-03-04T10:00:00Z",
            "o4,app,u1,2024-03-21T10:00:00Z",
        ])
        try l.computeMatchesFull("a regular user active on day 20")
        // u1 is regular already and the new rows are past the regular window: the fast path.
        // u1 was active on day 20 already: the new open adds no active user there, the purchase
        // makes u1 its payer (and new payer); day 21 is a new active day.
        try l.load("opens", Self.opens, ["o5,app,u1,2024-03-21T18:00:00Z", "o6,app,u1,2024-03-22T09:00:00Z"])
        try l.load("purchases", Self.purchases, ["p1,app,u1,2024-03-21T18:05:00Z,4.99,USD"])
        let later = try l.computeMatchesFull("more rows on a stored day")
        #expect(later.cohortDaysRebuilt == 0)
        #expect(try f.string("select active_days::text || ' ' || purchase_days::text from int_user_facts where user_id = 'u1'")
            == "{0,1,2,3,20,21} {20}")
        #expect(try f.snapshot("(select day_n, active_users, payers, new_payers from int_cohort_day_rollup where day_n >= 20)")
            == ["(20,1,1,1)", "(21,1,0,0)"])
    }

    @Test("the friction scope is the new files' sessions; a range or a marked cohort day scopes it by dates")
    func frictionScopeFollowsNewFiles() throws {
        let l = try Loaded(configuration: FunnelConfiguration())
        let connection = l.fixture.connection
        func pending(_ options: ComputeOptions = ComputeOptions()) throws -> FrictionScope? {
            try ComputeEngine.pendingFrictionScope(connection, options: options)
        }
        try connection.query("select ensure_month_partitions('raw_ux', '2024-01-01', '2024-12-31')")
        #expect(try pending() == nil)

        try l.load("installs", Self.installs, ["i1,app,u1,2024-03-01T10:00:00Z,organic,ios,US,,,"])
        #expect(try pending() == .newFiles)
        try l.load("ux", "event_id,app_id,user_id,session_id,occurred_at,screen,type", [
            "x1,app,u1,s1,2024-03-05T10:00:00Z,signup,screen_view", "x2,app,u1,s1,2024-03-04T10:00:00Z,signup,screen_view",
        ])
        #expect(try pending() == .newFiles)
        // A bounded run keeps to its dates: from the day before the earliest new telemetry.
        let bounded = try #require(try pending(ComputeOptions(from: PostgresDate(year: 2024, month: 3, day: 1))))
        #expect(bounded.rescansSessions && !bounded.newFilesOnly)
        #expect(bounded.from?.description == "2024-03-03")
        // A cohort day marked in the ledger: from the day before it.
        try connection.query("insert into dirty_cohort_days (app_id, cohort_date) values ('app', '2024-03-02')")
        let marked = try #require(try pending())
        #expect(!marked.newFilesOnly)
        #expect(marked.from?.description == "2024-03-01")
        try l.fixture.compute()
        #expect(try pending() == nil)
    }
}
