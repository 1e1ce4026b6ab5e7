import FunnelCompute
import FunnelBench
import FunnelCore
import FunnelSQL
import PostgresClient
import Testing

@Suite("Funnels and incremental compute")
struct FunnelAndIncrementalTests {
    @Test("the default funnel counts each step after the previous within its window, with medians")
    func defaultFunnel() throws {
        let f = try ComputeFixture()
        // u1: opens after 1 h, onboards 1 h later, 3 opens on days 1..7, purchases on day 5.
        try f.install("u1", "2024-03-01T10:00:00Z", network: "adnova")
        try f.open("u1", "2024-03-01T11:00:00Z")
        try f.step("u1", "onboarding_complete", "2024-03-01T12:00:00Z")
        for day in ["02", "03", "04"] { try f.open("u1", "2024-03-\(day)T12:00:00Z") }
        try f.purchase("u1", "2024-03-06T12:00:00Z", revenue: 5)
        // u2: opens after 3 h, onboards 3 h later, only 1 more open: not regular.
        try f.install("u2", "2024-03-01T10:00:00Z", network: "organic")
        try f.open("u2", "2024-03-01T13:00:00Z")
        try f.step("u2", "onboarding_complete", "2024-03-01T16:00:00Z")
        try f.open("u2", "2024-03-02T12:00:00Z")
        // u3: first open 8 days later (outside the 7-day window); purchases anyway (not in the funnel).
        try f.install("u3", "2024-03-01T10:00:00Z", network: "organic")
        try f.open("u3", "2024-03-09T10:00:00Z")
        try f.purchase("u3", "2024-03-09T10:30:00Z", revenue: 5)
        try f.markDirty("2024-03-01")
        try f.compute()
        let step = "from fct_funnel where funnel = 'default' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all' and step_index = $1"
        // users per step: 3, 2, 2, 1, 1.
        #expect(try f.int("select users \(step)", [0]) == 3)
        #expect(try f.int("select users \(step)", [1]) == 2)
        #expect(try f.int("select users \(step)", [2]) == 2)
        #expect(try f.int("select users \(step)", [3]) == 1)
        #expect(try f.int("select users \(step)", [4]) == 1)
        #expect(try f.string("select step \(step)", [2]) == "onboarding_complete")
        // open: 2 of 3 from first; onboarding 2/2 from previous; regular 1/2; purchase 1/1 and 1/3 overall.
        #expect(try f.double("select conversion_from_first \(step)", [1]) == 2.0 / 3)
        #expect(try f.double("select conversion_from_previous \(step)", [3]) == 0.5)
        #expect(try f.double("select conversion_from_first \(step)", [4]) == 1.0 / 3)
        // Median seconds install -> open: (3600 + 10800) / 2 = 7200; open -> onboarding the same.
        #expect(try f.double("select median_seconds_to_convert \(step)", [1]) == 7200)
        #expect(try f.double("select median_seconds_to_convert \(step)", [2]) == 7200)
        // u1 became regular at the third open on days 1..7 (03-04 12:00), 3 days after onboarding; bought 2 days later.
        #expect(try f.double("select median_seconds_to_convert \(step)", [3]) == 3 * 86_400)
        #expect(try f.double("select median_seconds_to_convert \(step)", [4]) == 2 * 86_400)
        // Broken down by network: adnova 1 user reaching every step.
        #expect(try f.int("select users from fct_funnel where funnel = 'default' and network = 'adnova' and step_index = 4") == 1)
        // Regular-user rate over mature cohorts (03-01 + 7 = 03-08 <= 03-09): 1 of 3.
        #expect(try f.double("select rate from fct_regular_users where network = 'all'") == 1.0 / 3)
    }

    @Test("a default step with no input in the app is left out with a note, and comes back when its input arrives")
    func defaultFunnelLeavesOutStepsWithoutInput() throws {
        let f = try ComputeFixture()
        // No onboarding rows at all: u1 opens after 1 h, then 3 opens on days 1..7, buys on day 5;
        // u2 opens after 2 h and once more (not regular); u3 never opens.
        try f.install("u1", "2024-03-01T10:00:00Z", network: "adnova")
        try f.open("u1", "2024-03-01T11:00:00Z")
        for day in ["02", "03", "04"] { try f.open("u1", "2024-03-\(day)T12:00:00Z") }
        try f.purchase("u1", "2024-03-06T12:00:00Z", revenue: 5)
        try f.install("u2", "2024-03-01T10:00:00Z")
        try f.open("u2", "2024-03-01T12:00:00Z")
        try f.open("u2", "2024-03-02T12:00:00Z")
        try f.install("u3", "2024-03-01T10:00:00Z")
        try f.markDirty("2024-03-01")
        let first = try f.compute()
        #expect(first.failedChecks.isEmpty)
        let all = "from fct_funnel where funnel = 'default' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all'"
        // install 3 -> first_open 2 -> regular_user 1 -> first_purchase 1; no onboarding row.
        #expect(try f.connection.query("select step || ',' || users \(all) order by step_index").map { try $0.decode(String.self, at: 0) } == [
            "install,3", "first_open,2", "regular_user,1", "first_purchase,1"])
        // regular_user's conversion is from first_open (1 of 2); its time from the first open:
        // u1's third open on days 1..7 (03-04 12:00) is 3 days and 1 hour after 03-01 11:00.
        #expect(try f.double("select conversion_from_previous \(all) and step = 'regular_user'") == 0.5)
        #expect(try f.double("select median_seconds_to_convert \(all) and step = 'regular_user'") == 3 * 86_400 + 3_600)
        #expect(try f.snapshot("default_funnel_left_out") == [
            #"(app,2,onboarding_complete,"no ""onboarding_complete"" onboarding step is loaded for this app")"#])
        // The report's date-range path (funnel_steps at read time) leaves it out too.
        let ranged = try f.connection.query(SQLCatalog.text("reports/funnel.sql"), ["app", "{}", "2024-03-01", nil])
            .map { "\(try $0.decode(String.self, column: "step"))=\(try $0.decode(Int.self, column: "users"))" }
        #expect(ranged == ["install=3", "first_open=2", "regular_user=1", "first_purchase=1"])

        // The onboarding rows arrive (u1 onboards 30 min after the first open): the next run
        // rebuilds everything and the step is back, equal to a full rebuild.
        try f.step("u1", "onboarding_complete", "2024-03-01T11:30:00Z")
        try f.markDirty("2024-03-01")
        let second = try f.compute()
        #expect(second.mode == "full")
        #expect(try f.connection.query("select step || ',' || users \(all) order by step_index").map { try $0.decode(String.self, at: 0) } == [
            "install,3", "first_open,2", "onboarding_complete,1", "regular_user,1", "first_purchase,1"])
        #expect(try f.int("select count(*) from default_funnel_left_out") == 0)
        let incremental = try f.snapshot("fct_funnel")
        try f.compute(full: true)
        #expect(try f.snapshot("fct_funnel") == incremental)
    }

    @Test("an app without opens or purchases keeps install -> onboarding in its default funnel")
    func defaultFunnelWithoutOpensOrPurchases() throws {
        let f = try ComputeFixture()
        try f.install("a", "2024-03-01T10:00:00Z")
        try f.step("a", "onboarding_complete", "2024-03-01T10:05:00Z")
        try f.install("b", "2024-03-01T10:00:00Z")
        try f.step("b", "onboarding_complete", "2024-03-09T10:05:00Z") // after the 7-day window
        try f.markDirty("2024-03-01")
        try f.compute()
        let all = "from fct_funnel where funnel = 'default' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all'"
        #expect(try f.connection.query("select step || ',' || users || ',' || coalesce(median_seconds_to_convert::text, '') \(all) order by step_index").map { try $0.decode(String.self, at: 0) } == [
            "install,2,", "onboarding_complete,1,300"])
        #expect(try f.connection.query("select step from default_funnel_left_out order by step_index").map { try $0.decode(String.self, at: 0) } == [
            "first_open", "regular_user", "first_purchase"])
    }

    @Test("user-defined funnels are evaluated per user and land in fct_funnel with breakdowns")
    func customFunnel() throws {
        let f = try ComputeFixture()
        try f.install("a", "2024-03-01T10:00:00Z", network: "adnova")
        try f.open("a", "2024-03-01T11:00:00Z")
        try f.invite("a", "x", "2024-03-01T12:00:00Z")
        try f.install("b", "2024-03-01T10:00:00Z")
        try f.open("b", "2024-03-01T11:00:00Z")
        try f.purchase("b", "2024-03-01T11:30:00Z", revenue: 1)
        try f.invite("b", "y", "2024-03-01T12:00:00Z")
        try f.markDirty("2024-03-01")
        var config = FunnelConfiguration()
        config.funnels = [
            FunnelDefinition(name: "invite_loop", steps: ["install", "open", "invite"], order: .ordered, windowDays: 1),
            FunnelDefinition(name: "strict_loop", steps: ["install", "open", "invite"], order: .strict, windowDays: 1),
        ]
        try f.compute(config)
        let users = "select users from fct_funnel where funnel = $1 and network = $2 and campaign = 'all' and country = 'all' and platform = 'all' and step_index = $3"
        #expect(try f.int(users, ["invite_loop", "all", 2]) == 2)
        #expect(try f.double("select median_seconds_to_convert from fct_funnel where funnel = 'invite_loop' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all' and step_index = 2") == 3600)
        // b's purchase sits between open and invite: the strict funnel stops at open for b.
        #expect(try f.int(users, ["strict_loop", "all", 2]) == 1)
        #expect(try f.int(users, ["strict_loop", "adnova", 2]) == 1)
        #expect(try f.int(users, ["strict_loop", "organic", 1]) == 1)
        #expect(try f.int(users, ["strict_loop", "organic", 2]) == 0)
    }

    @Test("a late event for an old cohort, marked dirty, is picked up by the incremental run")
    func lateEventsUpdateOldCohorts() throws {
        let f = try ComputeFixture()
        try f.install("u", "2024-03-01T10:00:00Z", network: "adnova")
        try f.install("w", "2024-03-10T10:00:00Z")
        try f.markDirty("2024-03-01", "2024-03-10")
        try f.compute()
        #expect(try f.double("select ltv from fct_ltv where network = 'adnova' and day = 5 and not projected") == 0)
        #expect(try f.int("select count(*) from dirty_cohort_days") == 0)
        try f.purchase("u", "2024-03-05T10:00:00Z", revenue: 8)
        try f.markDirty("2024-03-01")
        let summary = try f.compute()
        #expect(summary.mode == "incremental")
        #expect(summary.cohortDaysRebuilt == 3) // 03-01 widened to 02-29..03-02
        #expect(try f.double("select ltv from fct_ltv where network = 'adnova' and day = 5 and not projected") == 8)
        #expect(try f.double("select ltv from fct_ltv where network = 'adnova' and day = 3 and not projected") == 0)
    }

    @Test("a late install that predates a user's first install moves the user to the earlier cohort")
    func lateEarlierInstallMovesTheUser() throws {
        let f = try ComputeFixture()
        try f.install("u", "2024-03-05T10:00:00Z", network: "adnova")
        try f.markDirty("2024-03-05")
        try f.compute()
        try f.install("u", "2024-03-02T10:00:00Z", network: "pixelreach")
        try f.markDirty("2024-03-02")
        try f.compute()
        #expect(try f.int("select sum(installs) from int_cohort_rollup") == 1)
        #expect(try f.string("select network from int_cohort_rollup") == "pixelreach")
        #expect(try f.int("select reinstalls from int_cohort_rollup") == 1)
    }

    @Test("incremental runs give the same marts as a full rebuild of the same data")
    func incrementalEqualsFull() throws {
        let f = try ComputeFixture()
        try SyntheticData.insert(into: f.connection, app: "app", users: 400, firstDay: "2024-03-01", days: 20, seed: 1)
        try f.connection.execute("insert into dirty_cohort_days (app_id, cohort_date) select distinct app_id, installed_at::date from raw_installs union select app_id, spend_date from raw_ad_spend")
        var config = FunnelConfiguration()
        config.funnels = [FunnelDefinition(name: "buyers", steps: ["open", "purchase"], order: .any, windowDays: 3,
                                           exclusions: ["invite"])]
        config.kFactorWindowDays = 5 // so that cohorts of the 20 days mature and fct_kfactor has rows to compare
        try f.compute(config)
        // New day plus late rows for old cohorts, marked dirty as the loader would.
        try SyntheticData.insert(into: f.connection, app: "app", users: 60, firstDay: "2024-03-21", days: 1, seed: 2)
        try f.purchase("u1_5", "2024-03-21T09:00:00Z", revenue: 3)
        try f.open("u1_7", "2024-03-21T09:00:00Z")
        // What the loader marks: the UTC first-install date of every user the new rows touch, and spend dates.
        try f.connection.execute("""
            insert into dirty_cohort_days (app_id, cohort_date)
            select i.app_id, min(i.installed_at)::date
            from raw_installs i
            where i.user_id in (
                select user_id from raw_installs where installed_at >= '2024-03-21'
                union select user_id from raw_opens where opened_at >= '2024-03-21'
                union select user_id from raw_purchases where purchased_at >= '2024-03-21'
                union select user_id from raw_invites where sent_at >= '2024-03-21'
                union select user_id from raw_steps where occurred_at >= '2024-03-21')
            group by i.app_id, i.user_id
            union select app_id, spend_date from raw_ad_spend where spend_date >= '2024-03-21'
            on conflict do nothing
            """)
        let incremental = try f.compute(config)
        #expect(incremental.mode == "incremental")
        #expect(incremental.failedChecks.isEmpty)
        let marts = ["int_user_facts", "int_user_funnel_steps", "int_cohort_rollup", "int_cohort_day_rollup",
                     "int_cohort_bracket_rollup", "int_spend_day_rollup", "fct_funnel", "fct_funnel_top", "fct_retention",
                     "fct_retention_summary", "fct_retention_brackets", "fct_regular_users", "fct_ltv", "fct_ltv_models",
                     "fct_cpi", "fct_kfactor", "fct_networks", "int_funnel_points", "int_funnel_medians",
                     "int_network_day_rollup"]
        var before: [String: [String]] = [:]
        for mart in marts {
            before[mart] = try f.snapshot(mart)
            #expect(before[mart]?.isEmpty == false, "\(mart) is empty, so comparing it would prove nothing")
        }
        #expect(try f.int("select count(*) from fct_retention") ?? 0 > 100)
        // The kept medians equal the ones sorted from every user's facts; the network day rollup
        // is the day rollup summed.
        #expect(try f.snapshot("fct_funnel") == f.snapshot("funnel_steps(null, null, null)"))
        #expect(try f.snapshot("int_network_day_rollup") == f.snapshot("""
            (select app_id, cohort_date, network, day_n, sum(active_users)::integer, sum(last_active_users)::integer,
                    sum(revenue_usd), sum(payers)::integer, sum(new_payers)::integer
             from int_cohort_day_rollup group by app_id, cohort_date, network, day_n)
            """))
        let full = try f.compute(config, full: true)
        #expect(full.mode == "full")
        for mart in marts {
            #expect(try f.snapshot(mart) == before[mart], "\(mart) differs between incremental and full")
        }
    }

    @Test("rows of a new loaded file are folded in without dirty marks and give the marts of a full rebuild")
    func foldedFileEqualsFull() throws {
        let f = try ComputeFixture()
        var config = FunnelConfiguration()
        config.funnels = [FunnelDefinition(name: "buyers", steps: ["open", "purchase"], order: .any, windowDays: 3,
                                           exclusions: ["invite"])]
        config.kFactorWindowDays = 5 // so that cohorts of the 20 days mature and fct_kfactor has rows to compare
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 400, firstDay: "2024-03-01", days: 20, seed: 1,
                                 fileID: history)
        let first = try f.compute(config)
        #expect(first.usersRebuilt == 400) // the file's installs bring their cohorts into scope unmarked
        #expect(try f.int("select count(*) from compute_files") == 1)
        // One more day in one file: new installs, old users' activity, and late rows for old cohorts
        // (a purchase on day 4, an open on day 2, an invite), plus a reinstall that moves nobody.
        let day = try SyntheticData.registerFile(f.connection, name: "day.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 60, firstDay: "2024-03-21", days: 1, seed: 2,
                                 fileID: day)
        try f.connection.query("""
            insert into raw_purchases (event_id, app_id, user_id, purchased_at, revenue, currency, file_id)
            select 'late_p_' || user_id, app_id, user_id, installed_at + interval '4 days 1 hour', 7.5, 'EUR', $1
            from raw_installs where user_id in ('u1_5', 'u1_40', 'u1_41');
            """, [day])
        try f.connection.query("""
            insert into raw_opens (event_id, app_id, user_id, opened_at, file_id)
            select 'late_o_' || user_id, app_id, user_id, installed_at + interval '2 days', $1
            from raw_installs where user_id in ('u1_7', 'u1_90', 'u1_200') and event_id not like '%r';
            """, [day])
        try f.connection.query("""
            insert into raw_invites (event_id, app_id, user_id, invite_id, sent_at, file_id)
            select 'late_v_' || user_id, app_id, user_id, 'late_inv_' || user_id, installed_at + interval '1 hour', $1
            from raw_installs where user_id in ('u1_11', 'u1_12') and event_id not like '%r';
            """, [day])
        try f.connection.query("""
            insert into raw_installs (event_id, app_id, user_id, installed_at, network, file_id)
            select 'late_i_' || user_id, app_id, user_id, installed_at + interval '5 days', 'organic', $1
            from raw_installs where user_id = 'u1_300' and event_id not like '%r';
            """, [day])
        let incremental = try f.compute(config)
        #expect(incremental.mode == "incremental")
        #expect(incremental.failedChecks.isEmpty)
        #expect(incremental.usersRebuilt > 60)
        #expect(try f.int("select count(*) from compute_files") == 2)
        let marts = ["int_user_facts", "int_user_funnel_steps", "int_cohort_rollup", "int_cohort_day_rollup",
                     "int_cohort_bracket_rollup", "int_spend_day_rollup", "fct_funnel", "fct_funnel_top", "fct_retention",
                     "fct_retention_summary", "fct_retention_brackets", "fct_regular_users", "fct_ltv", "fct_ltv_models",
                     "fct_cpi", "fct_kfactor", "fct_networks", "int_funnel_points", "int_funnel_medians",
                     "int_network_day_rollup"]
        var before: [String: [String]] = [:]
        for mart in marts {
            before[mart] = try f.snapshot(mart)
            #expect(before[mart]?.isEmpty == false, "\(mart) is empty, so comparing it would prove nothing")
        }
        #expect(try f.snapshot("fct_funnel") == f.snapshot("funnel_steps(null, null, null)"))
        let again = try f.compute(config)
        #expect(again.usersRebuilt == 0)
        let full = try f.compute(config, full: true)
        #expect(full.mode == "full")
        for mart in marts {
            #expect(try f.snapshot(mart) == before[mart], "\(mart) differs between the folded file and a full rebuild")
        }
    }

    @Test("the triangle computes again only the cells a day can change, and fills rows it lacks whole")
    func retentionTriangleIncremental() throws {
        let f = try ComputeFixture()
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 20, seed: 4,
                                 fileID: history)
        try f.compute()
        // A table emptied by an upgrade, in part: the next run must bring these rows back whole.
        let removed = try f.connection.query("delete from fct_retention_cells where cohort_date < '2024-03-05'").affectedRows
        #expect(removed > 25)
        // A new day: new installs, returning users, a late open of day 2 of an old cohort.
        let day = try SyntheticData.registerFile(f.connection, name: "day.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 40, firstDay: "2024-03-21", days: 1, seed: 5,
                                 fileID: day)
        try f.connection.query("""
            insert into raw_opens (event_id, app_id, user_id, opened_at, file_id)
            select 'back_' || user_id, app_id, user_id, '2024-03-21 12:00+00', $1::bigint
            from raw_installs where user_id in ('u4_3', 'u4_60', 'u4_150', 'u4_250') and event_id not like '%r'
            union all
            select 'late_' || user_id, app_id, user_id, installed_at + interval '2 days', $1
            from raw_installs where user_id in ('u4_8', 'u4_120') and event_id not like '%r'
            """, [day])
        let stale = try f.snapshot("fct_retention")
        let incremental = try f.compute()
        #expect(incremental.mode == "incremental")
        #expect(incremental.failedChecks.isEmpty)
        let folded = try f.snapshot("fct_retention")
        #expect(folded != stale)
        _ = try f.compute(full: true)
        #expect(try f.snapshot("fct_retention") == folded, "the incremental triangle equals a full rebuild")
        #expect(try f.int("select count(*) from fct_retention_cells where cohort_date < '2024-03-05'") ?? 0 > removed)
    }

    @Test("a second compute while one runs returns at once instead of overlapping")
    func advisoryLockPreventsOverlap() throws {
        let f = try ComputeFixture()
        let holder = try f.settings.connect()
        try holder.advisoryLock(ComputeEngine.lockKey)
        defer { _ = try? holder.advisoryUnlock(ComputeEngine.lockKey) }
        let result = try ComputeEngine(configuration: FunnelConfiguration()).run(f.connection)
        #expect(result == nil)
    }

    @Test("every invariant check passes on synthetic data")
    func checksPass() throws {
        let f = try ComputeFixture()
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 15, seed: 3)
        let summary = try f.compute(full: true)
        #expect(summary.failedChecks.isEmpty)
        #expect(summary.cohortDaysRebuilt >= 15)
    }

    @Test("each invariant check reports a row that breaks its invariant, and only that check does")
    func checksCatchBrokenRows() throws {
        let f = try ComputeFixture()
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 15, seed: 3)
        #expect(try f.compute(full: true).failedChecks.isEmpty)
        let engine = ComputeEngine(configuration: FunnelConfiguration())
        // The checks as a run makes them: inside its transaction, whose temp tables name what it
        // wrote (the facts check reads only the users of the run's scope). Rolled back after.
        func failedChecks(after breakage: String) throws -> [String] {
            try f.connection.execute("begin")
            defer { _ = try? f.connection.execute("rollback") }
            try f.connection.execute(SQLCatalog.text("intermediate/metrics/scope_tables.sql"))
            try f.connection.execute(breakage)
            return try engine.failedChecks(f.connection)
        }
        #expect(try failedChecks(after: "select 1").isEmpty)
        let breakages: [(check: String, sql: String)] = [
            ("checks/cohort_rollup_counts.sql",
             "update int_cohort_rollup set openers = installs + 1 where ctid = (select min(ctid) from int_cohort_rollup)"),
            ("checks/funnel_steps_monotone.sql",
             "update fct_funnel set conversion_from_previous = 1.5 where ctid = (select min(ctid) from fct_funnel)"),
            ("checks/money_defined.sql",
             "update fct_networks set verdict = 'maybe' where ctid = (select min(ctid) from fct_networks)"),
            ("checks/retention_bounds.sql",
             "update fct_retention_cells set retained = cohort_size + 1 where ctid = (select min(ctid) from fct_retention_cells)"),
            // rolling retention below zero: more users last active before day 1 than the cohort
            ("checks/retention_bounds.sql", """
                update fct_retention_cells set last_active = cohort_size + 1
                where ctid = (select min(ctid) from fct_retention_cells where day = 0)
                """),
            ("checks/user_facts_consistent.sql", """
                update int_user_facts set first_open_at = installed_at - interval '1 hour'
                where ctid = (select min(ctid) from int_user_facts);
                insert into compute_scope (app_id, cohort_date)
                select app_id, cohort_date from int_user_facts where first_open_at < installed_at;
                """),
        ]
        for breakage in breakages {
            #expect(try failedChecks(after: breakage.sql) == [breakage.check])
        }
        #expect(try failedChecks(after: "select 1").isEmpty, "the rollbacks left the data as it was")
    }
}
