import FunnelCompute
import FunnelBench
import FunnelCore
import FunnelQuery
import FunnelSQL
import PostgresClient
import Testing

/// A funnel named in the configuration is computed with the evaluator `funnel query funnel` uses:
/// the two agree on the same definition, and a day folded in equals a full rebuild.
@Suite("Configured funnels over any event")
struct ConfiguredEventFunnelTests {
    /// Custom events for the users u{seed}_{index} of `indexes`: signup_started 5 minutes after
    /// their install, signup_completed after `minutes` (by email for even users, apple for odd),
    /// and app_uninstalled between the two for every seventh user.
    static func signups(_ f: ComputeFixture, seed: Int, indexes: Range<Int>, minutes: Int, fileID: Int, tag: String) throws {
        try f.connection.query("""
            insert into raw_events (event_id, app_id, user_id, event, occurred_at, properties, file_id)
            select $5::text || '_s_' || i.user_id, i.app_id, i.user_id, 'signup_started', i.installed_at + interval '5 minutes',
                   jsonb_build_object('plan', case when n % 3 = 0 then 'pro' else 'free' end), $4::bigint
            from raw_installs i
            cross join lateral (select split_part(i.user_id, '_', 2)::integer as n) x
            where i.user_id like 'u' || $1::text || '\\_%' and x.n >= $2::integer and x.n < $3::integer and i.event_id not like '%r'
            union all
            select $5::text || '_c_' || i.user_id, i.app_id, i.user_id, 'signup_completed',
                   i.installed_at + make_interval(mins => $6::integer),
                   jsonb_build_object('method', case when n % 2 = 0 then 'email' else 'apple' end), $4::bigint
            from raw_installs i
            cross join lateral (select split_part(i.user_id, '_', 2)::integer as n) x
            where i.user_id like 'u' || $1::text || '\\_%' and x.n >= $2::integer and x.n < $3::integer and i.event_id not like '%r'
            union all
            select $5::text || '_x_' || i.user_id, i.app_id, i.user_id, 'app_uninstalled', i.installed_at + interval '6 minutes',
                   '{}'::jsonb, $4::bigint
            from raw_installs i
            cross join lateral (select split_part(i.user_id, '_', 2)::integer as n) x
            where i.user_id like 'u' || $1::text || '\\_%' and x.n >= $2::integer and x.n < $3::integer and x.n % 7 = 0 and i.event_id not like '%r'
            """, [seed, indexes.lowerBound, indexes.upperBound, fileID, tag, minutes])
        try f.connection.execute("""
            insert into raw_events_keys (app_id, event_id) select app_id, event_id from raw_events on conflict do nothing
            """)
    }

    static var configuration: FunnelConfiguration {
        get throws {
            try FunnelConfiguration(toml: """
                [[funnels]]
                name = "signup"
                steps = ["install", "signup_started", "signup_completed where method = email"]
                window = "1h"
                exclude = ["app_uninstalled between 2 and 3"]
                """)
        }
    }

    @Test("a configured funnel of more than 63 matchers (62 exclusions that match nothing, then app_uninstalled) computes as the query answers")
    func computedBeyondSixtyThreeMatchers() throws {
        let f = try ComputeFixture()
        try f.connection.query("select ensure_month_partitions('raw_events', '2024-01-01', '2024-12-31')")
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 10, seed: 1,
                                 fileID: history)
        try Self.signups(f, seed: 1, indexes: 0..<200, minutes: 20, fileID: history, tag: "h")
        let unmatched = (0..<62).map { "\"signup_completed where method = m\($0)\"" }.joined(separator: ", ")
        let config = try FunnelConfiguration(toml: """
            [[funnels]]
            name = "wide"
            steps = ["install", "signup_started", "signup_completed where method = email"]
            window = "1h"
            exclude = [\(unmatched), "app_uninstalled between 2 and 3"]
            step_math = "first_time"
            """)
        // 66 matchers and the 3 step names of first-time math: 69 bits, two matches columns.
        #expect(config.funnels[0].spec.matchers.count + 3 == 69)
        _ = try f.compute(config)
        let computed = try f.connection.query("""
            select users from fct_funnel
            where funnel = 'wide' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all'
            order by step_index
            """).map { try $0.decode(Int.self, at: 0) }
        let adHoc = try FunnelQueryRunner(connection: f.connection).run(config.funnels[0].spec, scope: FunnelQueryScope(app: "app"))
        #expect(computed == adHoc.series.first?.steps.map(\.users))
        // The last exclusion (the 66th matcher) voids the attempts of every seventh user, as in the narrow funnel.
        var narrow = config.funnels[0].spec
        narrow.exclusions = Array(narrow.exclusions.suffix(1))
        let narrowAnswer = try FunnelQueryRunner(connection: f.connection).run(narrow, scope: FunnelQueryScope(app: "app"))
        #expect(computed == narrowAnswer.series.first?.steps.map(\.users))
        #expect(computed.count == 3 && computed[2] > 0 && computed[2] < computed[1])
    }

    @Test("per-step math in [[funnels]] (first time on step 1, total on step 2) computes as the query answers, PostHog's view, view case")
    func perStepMath() throws {
        let f = try ComputeFixture()
        try f.connection.query("select ensure_month_partitions('raw_events', '2024-01-01', '2024-12-31')")
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 100, firstDay: "2024-03-01", days: 5, seed: 1, fileID: history)
        // Two views, 5 and 10 minutes after the install, for every user.
        try f.connection.query("""
            insert into raw_events (event_id, app_id, user_id, event, occurred_at, properties, file_id)
            select 'v' || n || '_' || i.event_id, i.app_id, i.user_id, 'view', i.installed_at + make_interval(mins => 5 * n), '{}'::jsonb, $1::bigint
            from raw_installs i cross join generate_series(1, 2) n
            where i.event_id not like '%r'
            """, [history])
        try f.connection.execute("insert into raw_events_keys (app_id, event_id) select app_id, event_id from raw_events on conflict do nothing")
        let config = try FunnelConfiguration(toml: """
            [[funnels]]
            name = "mixed"
            steps = ["view", "view"]
            window = "1h"
            step_math = ["first_time", "total"]

            [[funnels]]
            name = "first"
            steps = ["view", "view"]
            window = "1h"
            step_math = "first_time"
            """)
        #expect(config.funnels[0].stepMaths == [.firstTime, .total])
        #expect(config.funnels[1].stepMaths == nil)
        _ = try f.compute(config)
        func computed(_ name: String) throws -> [Int] {
            try f.connection.query("""
                select users from fct_funnel
                where funnel = $1 and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all'
                order by step_index
                """, [name]).map { try $0.decode(Int.self, at: 0) }
        }
        let runner = FunnelQueryRunner(connection: f.connection)
        let mixed = try runner.run(config.funnels[0].spec, scope: FunnelQueryScope(app: "app"), stepMaths: [.firstTime, .total])
        let first = try runner.run(config.funnels[1].spec, scope: FunnelQueryScope(app: "app"))
        let viewers = try f.connection.query("select count(distinct user_id) from raw_events where event = 'view'").scalar(Int.self)
        #expect(viewers > 50)
        #expect(try computed("mixed") == [viewers, viewers])
        #expect(try computed("mixed") == mixed.series.first?.steps.map(\.users))
        #expect(try computed("first") == [viewers, 0])
        #expect(try computed("first") == first.series.first?.steps.map(\.users))
        let failure = { (text: String) -> ConfigurationError? in
            do { _ = try FunnelConfiguration(toml: text); return nil } catch { return error as? ConfigurationError }
        }
        #expect(failure("[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b\"]\nstep_math = [\"total\"]")?.key == "funnels[0].step_math")
        #expect(failure("[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b\"]\nstep_math = [\"total\", \"often\"]")?.key == "funnels[0].step_math")
    }

    @Test("the computed funnel equals the same ad hoc query, and a folded day equals a full rebuild")
    func computedEqualsAdHocAndFull() throws {
        let f = try ComputeFixture()
        try f.connection.query("select ensure_month_partitions('raw_events', '2024-01-01', '2024-12-31')")
        let config = try Self.configuration
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 10, seed: 1,
                                 fileID: history)
        try Self.signups(f, seed: 1, indexes: 0..<200, minutes: 20, fileID: history, tag: "h")
        _ = try f.compute(config)
        let computed = try f.connection.query("""
            select users from fct_funnel
            where funnel = 'signup' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all'
            order by step_index
            """).map { try $0.decode(Int.self, at: 0) }
        let adHoc = try FunnelQueryRunner(connection: f.connection).run(config.funnels[0].spec, scope: FunnelQueryScope(app: "app"))
        let answered = adHoc.series.first?.steps.map(\.users) ?? []
        #expect(computed.count == 3)
        #expect(computed == answered)
        // 200 users signed up; half completed by email; every seventh uninstalled in between.
        #expect(computed[1] < computed[0])
        #expect(computed[2] > 0 && computed[2] < computed[1])

        // A day later: users 200-260 sign up, and some of the first 200 complete again by email
        // after more than the hour (no change) or start anew.
        let day = try SyntheticData.registerFile(f.connection, name: "day.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 40, firstDay: "2024-03-11", days: 1, seed: 2,
                                 fileID: day)
        try Self.signups(f, seed: 1, indexes: 200..<260, minutes: 30, fileID: day, tag: "d")
        try Self.signups(f, seed: 2, indexes: 0..<40, minutes: 50, fileID: day, tag: "d")
        let incremental = try f.compute(config)
        #expect(incremental.mode == "incremental")
        let marts = ["int_user_funnel_steps", "fct_funnel"]
        var before: [String: [String]] = [:]
        for mart in marts { before[mart] = try f.snapshot(mart) }
        let full = try f.compute(config, full: true)
        #expect(full.mode == "full")
        for mart in marts {
            #expect(try f.snapshot(mart) == before[mart], "\(mart) differs between the folded day and a full rebuild")
        }
        let after = try FunnelQueryRunner(connection: f.connection).run(config.funnels[0].spec, scope: FunnelQueryScope(app: "app"))
        let computedAfter = try f.connection.query("""
            select users from fct_funnel
            where funnel = 'signup' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all'
            order by step_index
            """).map { try $0.decode(Int.self, at: 0) }
        #expect(computedAfter == after.series.first?.steps.map(\.users))
        #expect(computedAfter[1] > computed[1])
    }

    @Test("a compute's scope reads only the scope users' events, with the ad hoc query's answers, and leaves the planner's settings as they were")
    func computeScopeReadsScopeUsers() throws {
        let f = try ComputeFixture()
        try f.connection.query("select ensure_month_partitions('raw_events', '2024-01-01', '2024-12-31')")
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 120, firstDay: "2024-03-01", days: 5, seed: 3,
                                 fileID: history)
        try Self.signups(f, seed: 3, indexes: 0..<100, minutes: 20, fileID: history, tag: "h")
        let spec = try Self.configuration.funnels[0].spec
        let adHoc = try FunnelQueryRunner(connection: f.connection).run(spec, scope: FunnelQueryScope(app: "app"))
        let expected = Dictionary(uniqueKeysWithValues: adHoc.users.map { ($0.user, $0.result) })
        try f.connection.transaction { connection in
            try connection.execute("""
                create temp table scope_installs on commit drop as
                select distinct app_id, user_id from raw_installs where user_id like 'u3\\_1%'
                """)
            let scopeUsers = Set(try connection.query("select user_id from scope_installs").map { try $0.decode(String.self, at: 0) })
            #expect(scopeUsers.count > 5)
            let before = try connection.query("select current_setting('random_page_cost')").scalar(String.self)
            var seen: [String: FunnelUserResult] = [:]
            try FunnelQueryRunner(connection: connection).evaluateComputeScope(spec) { app, user, result in
                #expect(app == "app")
                seen[user] = result
            }
            #expect(Set(seen.keys).isSubset(of: scopeUsers))
            #expect(seen == expected.filter { scopeUsers.contains($0.key) })
            #expect(try connection.query("select current_setting('random_page_cost')").scalar(String.self) == before)
        }
    }

    @Test("[[funnels]] takes the query's definition: filters, windows with units, exclusions between steps, step math; bad ones name the key")
    func configuration() throws {
        let config = try Self.configuration
        let spec = config.funnels[0].spec
        #expect(spec.steps.map(\.label) == ["install", "signup_started", "signup_completed where method = email"])
        #expect(spec.windowMicros == 3_600_000_000)
        #expect(spec.exclusions == [FunnelExclusion(matcher: EventMatcher(events: ["app_uninstalled"]), fromStep: 2, toStep: 3)])
        let legacy = try FunnelConfiguration(toml: "[[funnels]]\nname = \"l\"\nsteps = [\"install\", \"open\", \"invite\"]\norder = \"any\"\nwindow_days = 2")
        #expect(legacy.funnels[0].spec.steps.map(\.events) == [["install"], ["app_open"], ["invite_sent"]])
        #expect(legacy.funnels[0].spec.order == .unordered)
        #expect(legacy.funnels[0].spec.windowMicros == 2 * 86_400_000_000)
        func failure(_ text: String) -> ConfigurationError? {
            do { _ = try FunnelConfiguration(toml: text); return nil } catch { return error as? ConfigurationError }
        }
        #expect(failure("[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b where\"]")?.key == "funnels[0].steps")
        #expect(failure("[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b\"]\nwindow = \"0m\"")?.key == "funnels[0].window")
        #expect(failure("[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b\"]\nexclude = [\"c between 1 and 3\"]")?.message
            == "exclusion 1 (c): between steps 1 and 3 is not a range of this funnel's steps (1 to 2, first < last)")
        #expect(failure("[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b\"]\nstep_math = \"once\"")?.key == "funnels[0].step_math")
    }

    @Test("a configured breakdown is computed per value, equal to the ad hoc query, for event and person properties")
    func breakdownEqualsAdHoc() throws {
        let f = try ComputeFixture()
        try f.connection.query("select ensure_month_partitions('raw_events', '2024-01-01', '2024-12-31')")
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 10, seed: 1,
                                 fileID: history)
        try Self.signups(f, seed: 1, indexes: 0..<200, minutes: 20, fileID: history, tag: "h")
        let config = try FunnelConfiguration(toml: """
            [[funnels]]
            name = "by_plan"
            steps = ["signup_started", "signup_completed where method = email"]
            window = "1h"
            breakdown = "plan"

            [[funnels]]
            name = "by_network"
            steps = ["install", "signup_started"]
            window = "1h"
            breakdown = "network"
            breakdown_type = "person"
            attribution = "all_events"
            """)
        let summary = try f.compute(config)
        #expect(summary.failedChecks.isEmpty)
        let runner = FunnelQueryRunner(connection: f.connection)
        for funnel in config.funnels {
            let computed = try f.connection.query("""
                select coalesce(breakdown, '(none)') || ':' || string_agg(users::text, ',' order by step_index)
                from fct_funnel_breakdown where app_id = 'app' and funnel = $1 group by breakdown
                """, [funnel.name]).map { try $0.decode(String.self, at: 0) }.sorted()
            let adHoc = try runner.run(funnel.spec, scope: FunnelQueryScope(app: "app")).series
                .map { "\($0.value ?? "(none)"):" + $0.steps.map { String($0.users) }.joined(separator: ",") }.sorted()
            #expect(computed.count >= 2, "\(funnel.name) has too few values to compare")
            #expect(computed == adHoc, "\(funnel.name)")
        }
        // Planted: every third user's plan is pro; even users complete by email 20 minutes after
        // their install, within the hour; the counts come from the planted events themselves.
        let pro = try f.int("select count(distinct user_id) from raw_events where event = 'signup_started' and properties ->> 'plan' = 'pro'") ?? 0
        let proByEmail = try f.int("""
            select count(distinct s.user_id) from raw_events s
            join raw_events c on c.user_id = s.user_id and c.event = 'signup_completed' and c.properties ->> 'method' = 'email'
            where s.event = 'signup_started' and s.properties ->> 'plan' = 'pro'
            """) ?? 0
        #expect(pro > 20 && proByEmail > 5 && proByEmail < pro)
        #expect(try f.string("select string_agg(users::text, ',' order by step_index) from fct_funnel_breakdown where funnel = 'by_plan' and breakdown = 'pro'") == "\(pro),\(proByEmail)")
        // The overall funnel is there too, each user once.
        let started = try f.int("select count(distinct user_id) from raw_events where event = 'signup_started'")
        #expect(try f.int("select users from fct_funnel where funnel = 'by_plan' and network = 'all' and campaign = 'all' and country = 'all' and platform = 'all' and step_index = 0") == started)
        // The report's rows: values by their step-1 users, users without the property last; a
        // date range covering every cohort computes the same rows at read time.
        let reported = try f.connection.query(SQLCatalog.text("reports/funnel_breakdowns.sql"), ["app", nil, nil])
        let ranged = try f.connection.query(SQLCatalog.text("reports/funnel_breakdowns.sql"), ["app", "2024-01-01", "2024-12-31"])
        func lines(_ rows: PostgresResult) throws -> [String] {
            try rows.map { "\(try $0.decode(String.self, column: "funnel")) \(try $0.decode(String?.self, column: "breakdown") ?? "-") \(try $0.decode(Int.self, column: "step_index")) \(try $0.decode(Int.self, column: "users"))" }
        }
        #expect(try lines(reported) == lines(ranged))
        let planOrder = try reported.filter { try $0.decode(String.self, column: "funnel") == "by_plan" && $0.decode(Int.self, column: "step_index") == 0 }
            .map { try $0.decode(Int.self, column: "users") }
        #expect(planOrder == planOrder.sorted(by: >))
        // A full rebuild gives the same marts.
        let before = try f.snapshot("fct_funnel_breakdown")
        try f.compute(config, full: true)
        #expect(try f.snapshot("fct_funnel_breakdown") == before)
        #expect(try f.snapshot("dash_funnel_breakdown").count == before.count)
    }

    @Test("[[funnels]] breakdown keys: the property, its source and attribution; bad ones name the key")
    func breakdownConfiguration() throws {
        let config = try FunnelConfiguration(toml: """
            [[funnels]]
            name = "x"
            steps = ["a", "b", "c"]
            breakdown = "plan"
            attribution = "step:2"
            """)
        #expect(config.funnels[0].spec.breakdown == FunnelBreakdown(property: "plan", source: .event, attribution: .step(2)))
        func failure(_ extra: String) -> ConfigurationError? {
            do { _ = try FunnelConfiguration(toml: "[[funnels]]\nname = \"x\"\nsteps = [\"a\", \"b\"]\n" + extra); return nil } catch { return error }
        }
        #expect(failure("breakdown = \"p\"\nattribution = \"step:3\"")?.message == "step:3 is past the last step (the funnel has 2)")
        #expect(failure("breakdown = \"p\"\nattribution = \"first\"")?.key == "funnels[0].attribution")
        #expect(failure("breakdown = \"p\"\nbreakdown_type = \"user\"")?.key == "funnels[0].breakdown_type")
        #expect(failure("attribution = \"last_touch\"")?.message == "needs a breakdown: set breakdown = \"<property>\" in this funnel too")
    }
}
