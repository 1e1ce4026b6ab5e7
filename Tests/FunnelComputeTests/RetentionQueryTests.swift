import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelQuery
import FunnelSQL
import PostgresClient
import Testing
import TestSupport

/// `funnel query retention` over loaded rows: hand-computed cases for filters on both events,
/// weeks, first time and recurring, minimum occurrences, the as-of date and breakdowns; the same
/// numbers as the install/app_open retention marts where the definitions coincide; and generated
/// data whose realised and planted retention it must recover.
@Suite("Retention queries over loaded events")
struct RetentionQueryTests {
    static func day(_ text: String) -> Int { RetentionCalendar.day(ofText: text)! }

    static func spec(_ start: String = "install", _ returning: String = "app_open", period: RetentionPeriod = .day,
                     periods: Int = 4, cohorts: RetentionCohortType = .firstTime, minOccurrences: Int = 1,
                     breakdown: FunnelBreakdown? = nil) throws -> RetentionSpec {
        RetentionSpec(start: try FunnelSyntax.matcher(start), returning: try FunnelSyntax.matcher(returning),
                      cohortType: cohorts, period: period, periods: periods, minOccurrences: minOccurrences,
                      brackets: [1...2], breakdown: breakdown)
    }

    static func run(_ f: ComputeFixture, _ spec: RetentionSpec, asOf: String? = nil) throws -> RetentionTable {
        try RetentionQueryRunner(connection: f.connection)
            .run(spec, scope: RetentionQueryScope(app: f.app, asOfDay: asOf.map(day))).table
    }

    /// Classic rows per cohort start date of the one series (or of `value`).
    static func triangle(_ table: RetentionTable, value: String? = nil) -> [String: [Int?]] {
        let series = table.series.first { $0.value == value } ?? table.series.first
        return Dictionary(uniqueKeysWithValues: (series?.cohorts ?? []).map { (RetentionCalendar.text(ofDay: $0.firstDay), $0.classic) })
    }

    static func event(_ f: ComputeFixture, _ id: String, _ user: String, _ name: String, _ at: String, _ properties: String) throws {
        try f.connection.query("""
            insert into raw_events (event_id, app_id, user_id, event, occurred_at, properties, file_id)
            values ($1, $2, $3, $4, $5::timestamptz, $6::jsonb, 0)
            """, [id, f.app, user, name, at, properties])
        try f.connection.query("insert into raw_events_keys (app_id, event_id) values ($1, $2)", [f.app, id])
    }

    /// Three users over Sunday weeks (W0 = 25 Feb - 2 Mar 2024, W1 = 3-9 Mar, W2 = 10-16 Mar):
    /// p1 (adnova) onboards on the pro plan in W0 and buys for 10 twice in W1, once for 10 and
    /// once for 3 in W2; p2 (organic) onboards free in W0, pro in W1, and buys for 20 twice in W2;
    /// p3 (adnova) onboards pro in W0 and again in W2 and buys for 6 twice in W2. The last event is
    /// on 13 March.
    static func weekly() throws -> ComputeFixture {
        let f = try ComputeFixture()
        try f.connection.query("select ensure_month_partitions('raw_events', '2024-01-01', '2024-12-31')")
        for (user, network) in [("p1", "adnova"), ("p2", "organic"), ("p3", "adnova")] {
            try f.install(user, "2024-03-01T08:00:00Z", network: network)
        }
        let rows: [(String, String, String, String)] = [
            ("p1", "onboarding_complete", "2024-03-01T09:00:00Z", #"{"plan":"pro"}"#),
            ("p1", "purchase_made", "2024-03-04T10:00:00Z", #"{"revenue":10}"#),
            ("p1", "purchase_made", "2024-03-05T10:00:00Z", #"{"revenue":10}"#),
            ("p1", "purchase_made", "2024-03-12T10:00:00Z", #"{"revenue":10}"#),
            ("p1", "purchase_made", "2024-03-13T10:00:00Z", #"{"revenue":3}"#),
            ("p2", "onboarding_complete", "2024-03-01T09:00:00Z", #"{"plan":"free"}"#),
            ("p2", "onboarding_complete", "2024-03-04T09:00:00Z", #"{"plan":"pro"}"#),
            ("p2", "purchase_made", "2024-03-11T10:00:00Z", #"{"revenue":20}"#),
            ("p2", "purchase_made", "2024-03-12T10:00:00Z", #"{"revenue":20}"#),
            ("p3", "onboarding_complete", "2024-03-02T09:00:00Z", #"{"plan":"pro"}"#),
            ("p3", "onboarding_complete", "2024-03-10T09:00:00Z", #"{"plan":"pro"}"#),
            ("p3", "purchase_made", "2024-03-11T10:00:00Z", #"{"revenue":6}"#),
            ("p3", "purchase_made", "2024-03-11T11:00:00Z", #"{"revenue":6}"#),
        ]
        for (index, row) in rows.enumerated() { try event(f, "c\(index)", row.0, row.1, row.2, row.3) }
        return f
    }

    static let proOnboarding = "onboarding_complete where plan = pro"
    static let bigPurchase = "purchase_made where revenue > 5"

    @Test("filters on both events, weeks and minimum occurrences: first-time cohorts")
    func weeklyFirstTime() throws {
        let f = try Self.weekly()
        let spec = try Self.spec(Self.proOnboarding, Self.bigPurchase, period: .week, periods: 3, minOccurrences: 2)
        // p1: W0, back in W1 (2 purchases over 5; W2 has one). p3: W0, back in W2. p2: first pro
        // onboarding in W1, back in W2. As of 23 March (end of W3) W0 is mature through period 3.
        #expect(Self.triangle(try Self.run(f, spec, asOf: "2024-03-23")) == [
            "2024-02-25": [2, 1, 1, 0], "2024-03-03": [1, 1, 0, nil],
        ])
        let table = try Self.run(f, spec, asOf: "2024-03-23")
        #expect(table.series[0].cohorts[0].rolling == [2, 2, 1, 0])
        // One purchase a week is enough without the minimum: p1 is back in W2 too.
        var once = spec
        once.minOccurrences = 1
        #expect(Self.triangle(try Self.run(f, once, asOf: "2024-03-23"))["2024-02-25"] == [2, 1, 2, 0])
    }

    @Test("recurring cohorts: every week with a start event; a return in the same week is period 0")
    func weeklyRecurring() throws {
        let f = try Self.weekly()
        let spec = try Self.spec(Self.proOnboarding, Self.bigPurchase, period: .week, periods: 3, cohorts: .recurring,
                                 minOccurrences: 2)
        #expect(Self.triangle(try Self.run(f, spec, asOf: "2024-03-23")) == [
            "2024-02-25": [2, 1, 1, 0], "2024-03-03": [1, 1, 0, nil], "2024-03-10": [1, 0, nil, nil],
        ])
    }

    @Test("as of the last date with data (13 March) a week not over is missing; as of a later date it is 0")
    func asOf() throws {
        let f = try Self.weekly()
        let spec = try Self.spec(Self.proOnboarding, Self.bigPurchase, period: .week, periods: 3, minOccurrences: 2)
        let result = try RetentionQueryRunner(connection: f.connection).run(spec, scope: RetentionQueryScope(app: "app"))
        #expect(result.dataEndDay == Self.day("2024-03-13"))
        #expect(Self.triangle(result.table) == ["2024-02-25": [2, 1, nil, nil], "2024-03-03": [1, nil, nil, nil]])
        // As of 30 March, W4 is over too: W1's period 3 is 0, not missing.
        #expect(Self.triangle(try Self.run(f, spec, asOf: "2024-03-30"))["2024-03-03"] == [1, 1, 0, 0])
        // As of 9 March, the purchases after it are not read: W0 period 1 only.
        #expect(Self.triangle(try Self.run(f, spec, asOf: "2024-03-09")) == ["2024-02-25": [2, 1, nil, nil], "2024-03-03": [1, nil, nil, nil]])
    }

    @Test("breakdowns: by the user's first install (person) and by the start event's property")
    func breakdowns() throws {
        let f = try Self.weekly()
        let person = try Self.spec(Self.proOnboarding, Self.bigPurchase, period: .week, periods: 3, minOccurrences: 2,
                                   breakdown: FunnelBreakdown(property: "network", source: .person))
        let table = try Self.run(f, person, asOf: "2024-03-23")
        #expect(table.series.map(\.value) == ["adnova", "organic"])
        #expect(Self.triangle(table, value: "adnova") == ["2024-02-25": [2, 1, 1, 0]])
        #expect(Self.triangle(table, value: "organic") == ["2024-03-03": [1, 1, 0, nil]])
        let event = try Self.spec("onboarding_complete", Self.bigPurchase, period: .week, periods: 3, minOccurrences: 2,
                                  breakdown: FunnelBreakdown(property: "plan"))
        // First time without the filter: p2's first onboarding (free, W0) makes its cohort.
        let byPlan = try Self.run(f, event, asOf: "2024-03-23")
        #expect(byPlan.series.map(\.value) == ["free", "pro"])
        #expect(Self.triangle(byPlan, value: "free") == ["2024-02-25": [1, 0, 1, 0]])
    }

    @Test("an event never loaded counts nobody, with a warning; every cohort of --from..--to is listed")
    func unknownEventsAndEmptyCohorts() throws {
        let f = try Self.weekly()
        var warnings: [String] = []
        let runner = RetentionQueryRunner(connection: f.connection, warn: { warnings.append($0) })
        let scope = RetentionQueryScope(app: f.app, fromDay: Self.day("2024-02-18"), toDay: Self.day("2024-03-09"),
                                        asOfDay: Self.day("2024-03-23"))
        let typo = try runner.run(try Self.spec("onboarding_completed", Self.bigPurchase, period: .week, periods: 2), scope: scope)
        #expect(warnings == ["--start onboarding_completed: app app has no event named onboarding_completed; counted as 0 users; "
            + "nearest names: onboarding_complete; event names are case-sensitive"])
        // Three Sunday weeks from 18 Feb to 9 Mar, all empty, each mature period at 0.
        #expect(typo.table.series.count == 1)
        #expect(typo.table.series[0].cohorts.map(\.size) == [0, 0, 0])
        #expect(Self.triangle(typo.table)["2024-02-18"] == [0, 0, 0])
        // The weekly fixture's cohorts (25 Feb: p1, p3; 3 Mar: p2) after an empty week.
        let table = try runner.run(try Self.spec(Self.proOnboarding, Self.bigPurchase, period: .week, periods: 2,
                                                 minOccurrences: 2), scope: scope).table
        #expect(table.series[0].cohorts.map { RetentionCalendar.text(ofDay: $0.firstDay) } == ["2024-02-18", "2024-02-25", "2024-03-03"])
        #expect(table.series[0].cohorts.map(\.size) == [0, 2, 1])
    }

    @Test("weekly cohorts with daily periods: each member's days from their own install, one call")
    func weeklyCohortsDailyPeriods() throws {
        let f = try Self.installs()
        var spec = try Self.spec(periods: 3)
        spec.cohortPeriod = .week
        // a, b, c installed on Friday 1 March (week of 25 Feb): a back on days 1 and 3, b on day 1.
        // x installed on Monday 4 March (week of 3 March), back on day 1. As of 10 March, day 1 of
        // the week of 3 March is over for every member (the last could install on 9 March), day 2 not.
        #expect(Self.triangle(try Self.run(f, spec, asOf: "2024-03-10")) == [
            "2024-02-25": [3, 2, 0, 1], "2024-03-03": [1, 1, nil, nil],
        ])
        spec.cohortPeriod = .month
        #expect(Self.triangle(try Self.run(f, spec, asOf: "2024-04-03")) == ["2024-03-01": [4, 3, 0, 1]])
        var wrong = try Self.spec(period: .week)
        wrong.cohortPeriod = .month
        #expect(wrong.problem()?.hasPrefix("--cohort-period month: weekly or monthly cohorts take day periods") == true)
    }

    @Test("unknown properties and breakdowns are refused, naming the flag")
    func errors() throws {
        let f = try Self.weekly()
        func message(_ spec: RetentionSpec) -> String? {
            do { _ = try Self.run(f, spec); return nil } catch { return "\(error)" }
        }
        #expect(message(try Self.spec(Self.proOnboarding, "purchase_made where price > 5"))?.hasPrefix("--return") == true)
        #expect(message(try Self.spec("onboarding_complete where tier = pro", Self.bigPurchase))?.hasPrefix("--start") == true)
        #expect(message(try Self.spec("install", Self.bigPurchase, breakdown: FunnelBreakdown(property: "plan")))?.hasPrefix("--breakdown plan") == true)
    }

    /// docs/metrics.md's fixture of the install retention tests: cohort 1 March (a, b, c), a
    /// opens on days 1 and 3, b on day 1 and reinstalls on day 2; cohort 4 March (x) opens on day 1.
    static func installs() throws -> ComputeFixture {
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

    /// The marts' cells for network `network`: [cohort date: [retained per day]] and rolling.
    static func marts(_ connection: PostgresConnection, network: String = "all") throws -> (classic: [String: [Int]], rolling: [String: [Int]]) {
        var classic: [String: [Int]] = [:]
        var rolling: [String: [Int]] = [:]
        for row in try connection.query("""
            select cohort_date::text, day, retained,
                   (cohort_size - coalesce(sum(last_active) over (partition by app_id, cohort_date, network order by day
                                                                  rows between unbounded preceding and 1 preceding), 0))::bigint
            from fct_retention_cells where network = $1 order by cohort_date, day
            """, [network]) {
            let date = try row.decode(String.self, at: 0)
            classic[date, default: []].append(try row.decode(Int.self, at: 2))
            rolling[date, default: []].append(try row.decode(Int.self, at: 3))
        }
        return (classic, rolling)
    }

    @Test("install to app_open equals the retention marts, classic and rolling, reinstalls aside, in each day rule and time zone",
          arguments: [("UTC", DayRule.calendar), ("UTC", .hours24), ("Asia/Tokyo", .calendar), ("America/Los_Angeles", .hours24)])
    func equalsInstallRetention(zone: String, rule: DayRule) throws {
        let f = try Self.installs()
        var configuration = FunnelConfiguration()
        configuration.timeZone = zone
        configuration.dayRule = rule
        try f.compute(configuration)
        var spec = try Self.spec(periods: 4)
        spec.timeZone = zone
        spec.dayRule = rule
        let table = try Self.run(f, spec)
        let marts = try Self.marts(f.connection)
        // The query lists the empty cohorts between the first and the last too (size 0); the marts hold none.
        let cohorts = table.series[0].cohorts.filter { $0.size > 0 }
        for cohort in cohorts {
            let date = RetentionCalendar.text(ofDay: cohort.firstDay)
            #expect(cohort.classic.compactMap { $0 } == marts.classic[date], "\(date) classic")
            #expect(cohort.rolling.compactMap { $0 } == marts.rolling[date], "\(date) rolling")
        }
        #expect(cohorts.count == marts.classic.count)
        if zone == "UTC" && rule == .calendar {
            #expect(Self.triangle(table) == ["2024-03-01": [3, 2, 0, 1, 0], "2024-03-02": [0, 0, 0, 0, nil],
                                             "2024-03-03": [0, 0, 0, nil, nil], "2024-03-04": [1, 1, nil, nil, nil]])
        }
    }

    @Test("generated data: per network equal to the marts, and the realised and planted D1 and D7 recovered")
    func generated() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "retention-query").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try Generator.run(GeneratorOptions(outputDirectory: directory, users: 3_000, days: 20, seed: 11))
        let settings = try TestCluster.freshDatabase(migrated: true)
        try GeneratedDataLoader.load(directory: directory, settings: settings)
        let connection = try settings.connect()
        _ = try ComputeEngine(configuration: FunnelConfiguration()).run(connection, options: ComputeOptions(full: true))
        let app = try connection.query(SQLCatalog.text("query/default_app.sql")).scalar(String.self)
        let spec = try Self.spec(periods: 7, breakdown: FunnelBreakdown(property: "network", source: .person))
        let result = try RetentionQueryRunner(connection: connection).run(spec, scope: RetentionQueryScope(app: app))
        let table = result.table
        // The default as-of date is compute's last date with data (the generator also writes
        // onboarding steps and telemetry, which neither counts).
        #expect(result.asOfDay == (try connection.query(
            "select (data_through_date - date '1970-01-01')::integer from compute_state where app_id = $1", [app]).scalar(Int.self)))
        let truth = generated.truth
        #expect(table.series.count >= 5)
        for series in table.series {
            let network = try #require(series.value)
            let marts = try Self.marts(connection, network: network)
            for cohort in series.cohorts {
                let date = RetentionCalendar.text(ofDay: cohort.firstDay)
                #expect(cohort.classic.compactMap { $0 } == Array((marts.classic[date] ?? []).prefix(8)), "\(network) \(date)")
            }
            let sources = truth.networks.filter { $0.installNetworkValue == network }
            for day in [1, 7] {
                var active = 0.0, size = 0
                for source in sources {
                    let cohort = source.realised.retentionCohortByDay[day]
                    guard cohort > 0, let rate = source.realised.retentionByDay[day] else { continue }
                    active += rate * Double(cohort)
                    size += cohort
                }
                let observed = try #require(series.classic[day].rate)
                #expect(abs(observed - active / Double(size)) < 1e-9, "\(network) D\(day) realised")
                let installs = sources.reduce(0) { $0 + $1.realised.installs }
                let planted = sources.reduce(0.0) { $0 + (day == 1 ? $1.planted.retentionD1 : $1.planted.retentionD7) * Double($1.realised.installs) }
                    / Double(installs)
                #expect(abs(observed - planted) < 0.06, "\(network) D\(day) \(observed) vs planted \(planted)")
            }
        }

        // Weekly, at least two opens a week: the evaluator against the same rule written as SQL
        // over the raw rows (Sunday weeks: day numbers since 1970 plus 4, over 7), pooled over
        // the cohorts whose week k has ended by the as-of date.
        var weekly = try Self.spec(period: .week, periods: 2, minOccurrences: 2)
        weekly.brackets = []
        let weeks = try RetentionQueryRunner(connection: connection).run(weekly, scope: RetentionQueryScope(app: app)).table.series[0]
        let asOf = result.asOfDay
        for k in 1...2 {
            let row = try connection.query("""
                with cohorts as (
                    select user_id, floor((floor(extract(epoch from min(installed_at)) / 86400) + 4) / 7)::integer as week
                    from raw_installs where app_id = $1 group by user_id
                ), mature as (
                    select * from cohorts where (week + $2::integer) * 7 + 2 <= $3::integer
                ), weeks as (
                    select user_id, floor((floor(extract(epoch from opened_at) / 86400) + 4) / 7)::integer as week, count(*) as opens
                    from raw_opens where app_id = $1 group by 1, 2
                )
                select (select count(*) from mature)::bigint,
                       (select count(*) from mature m join weeks w on w.user_id = m.user_id
                        where w.week = m.week + $2::integer and w.opens >= 2)::bigint
                """, [app, k, asOf]).rows[0]
            #expect(weeks.classic[k].size == (try row.decode(Int.self, at: 0)), "week \(k) cohort size")
            #expect(weeks.classic[k].retained == (try row.decode(Int.self, at: 1)), "week \(k) retained")
            #expect(weeks.classic[k].retained > 0)
        }
    }
}
