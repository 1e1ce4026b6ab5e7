import Foundation
import FunnelCore
import FunnelIngest
import FunnelQuery
import PostgresClient
import IngestFixtures
import Testing

/// `funnel query trends`, `stickiness`, `lifecycle` and `paths` over loaded events: each rule of
/// docs/insights.md on hand-computed cases, through the database and the binary.
@Suite("Insight queries over loaded events")
struct InsightQueryTests {
    /// Four users, 1-5 May 2024 the range (UTC):
    /// - u1: app_open 05-01 10:00 and 11:00, 05-02 09:00; purchase 05-02 09:10 (10, pro); app_open 05-04 10:00.
    /// - u2: app_open 05-02 10:00; purchase 05-02 10:05 (4, free), 05-03 12:00 (6, plan ""); app_open 05-06 08:00.
    /// - u3: signup 04-20; app_open 04-28 12:00 and 05-03 23:30; purchase 05-03 23:40 (20, no plan).
    /// - u4: ux_tap 05-01 08:00 and 08:01, ux_scroll 08:02, app_open 08:03 and 08:04, purchase 08:05 (no revenue).
    static func loaded() throws -> LoaderFixture {
        let db = try LoaderFixture()
        var id = 0
        func event(_ user: String, _ name: String, _ time: String, _ properties: String = "{}") -> String {
            id += 1
            return #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(user)","event":"\#(name)","occurred_at":"2024-\#(time)Z","properties":\#(properties)}"#
        }
        let lines = [
            event("u1", "app_open", "05-01T10:00:00"), event("u1", "app_open", "05-01T11:00:00"),
            event("u1", "app_open", "05-02T09:00:00"), event("u1", "purchase", "05-02T09:10:00", #"{"revenue":10,"plan":"pro"}"#),
            event("u1", "app_open", "05-04T10:00:00"),
            event("u2", "app_open", "05-02T10:00:00"), event("u2", "purchase", "05-02T10:05:00", #"{"revenue":4,"plan":"free"}"#),
            event("u2", "purchase", "05-03T12:00:00", #"{"revenue":6,"plan":""}"#), event("u2", "app_open", "05-06T08:00:00"),
            event("u3", "signup", "04-20T12:00:00"), event("u3", "app_open", "04-28T12:00:00"),
            event("u3", "app_open", "05-03T23:30:00"), event("u3", "purchase", "05-03T23:40:00", #"{"revenue":20}"#),
            event("u4", "ux_tap", "05-01T08:00:00"), event("u4", "ux_tap", "05-01T08:01:00"), event("u4", "ux_scroll", "05-01T08:02:00"),
            event("u4", "app_open", "05-01T08:03:00"), event("u4", "app_open", "05-01T08:04:00"), event("u4", "purchase", "05-01T08:05:00"),
        ]
        let reports = try db.ingest([try db.file("events.ndjson", lines.joined(separator: "\n") + "\n")])
        #expect(reports.allSatisfy { $0.status == .loaded })
        return db
    }

    static let range = InsightRange(app: "a", fromDay: RetentionCalendar.day(ofText: "2024-05-01"), toDay: RetentionCalendar.day(ofText: "2024-05-05"))

    static func trend(_ db: LoaderFixture, _ series: [(String, String)], interval: InsightInterval = .day, weekStart: WeekStart = .sunday,
                      timeZone: String = "UTC", breakdown: String? = nil, limit: Int = 25, compare: Bool = false,
                      formula: String? = nil, cumulative: Bool = false, range: InsightRange = range) throws -> [InsightLine] {
        let spec = TrendsSpec(series: try series.map { TrendSeries(matcher: try FunnelSyntax.matcher($0.0), math: TrendMath(text: $0.1)!) },
                              interval: interval, weekStart: weekStart, timeZone: timeZone,
                              breakdown: breakdown.map { FunnelBreakdown(property: $0) }, breakdownLimit: limit, compare: compare,
                              formula: formula, cumulative: cumulative)
        return try InsightQueryRunner(connection: db.connection).trends(spec, range: range).lines
    }

    @Test("trends: total, unique users, cumulative users, weekly active users reaching before the range")
    func trendsCounts() throws {
        let db = try Self.loaded()
        let total = try Self.trend(db, [("app_open", "total")])
        #expect(total.map(\.points) == [["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05"]])
        #expect(total.map(\.values) == [[4, 2, 1, 1, 0]])
        #expect(total.map(\.total) == [8])
        let users = try Self.trend(db, [("app_open", "dau")])
        #expect(users.map(\.values) == [[2, 2, 1, 1, 0]])
        // Over the range: 4 distinct users, not the sum of the days (6).
        #expect(users.map(\.total) == [4])
        // Cumulative: a running count of distinct users.
        #expect(try Self.trend(db, [("app_open", "dau")], cumulative: true).map(\.values) == [[2, 3, 4, 4, 4]])
        #expect(try Self.trend(db, [("app_open", "total")], cumulative: true).map(\.values) == [[4, 6, 7, 8, 8]])
        // u3's open on 28 April counts in the 7 days ending 1 to 4 May.
        #expect(try Self.trend(db, [("app_open", "weekly_active")]).map(\.values) == [[3, 4, 4, 4, 4]])
        // First time for user: u3's first open (28 April) is before the range.
        #expect(try Self.trend(db, [("app_open", "first_time_for_user")]).map(\.values) == [[2, 1, 0, 0, 0]])
    }

    @Test("trends: per-user counts and a numeric property's sum, average and median")
    func trendsAggregates() throws {
        let db = try Self.loaded()
        let perUser = try Self.trend(db, [("app_open", "avg_count_per_user")])
        #expect(perUser.map(\.values) == [[2, 1, 1, 1, 0]])
        // u1 4, u2 1, u3 1, u4 2 opens over the range.
        #expect(perUser.map(\.total) == [2])
        #expect(try Self.trend(db, [("app_open", "median_count_per_user")]).map(\.total) == [1.5])
        #expect(try Self.trend(db, [("app_open", "max_count_per_user")]).map(\.total) == [4])
        let revenue = try Self.trend(db, [("purchase", "sum(revenue)")])
        #expect(revenue.map(\.values) == [[0, 14, 26, 0, 0]])
        #expect(revenue.map(\.total) == [40])
        // u4's purchase has no revenue: it is left out of the average.
        #expect(try Self.trend(db, [("purchase", "avg(revenue)")]).map(\.values) == [[0, 7, 13, 0, 0]])
        #expect(try Self.trend(db, [("purchase where revenue > 5", "total")]).map(\.values) == [[0, 1, 2, 0, 0]])
    }

    @Test("trends: breakdown values as text, the empty value last, the limit and (other)")
    func trendsBreakdowns() throws {
        let db = try Self.loaded()
        let byPlan = try Self.trend(db, [("purchase", "total")], breakdown: "plan")
        // free and pro tie at one purchase (by name); "" and missing are one value, listed last.
        #expect(byPlan.map(\.breakdown) == ["free", "pro", ""])
        #expect(byPlan.map(\.values) == [[0, 1, 0, 0, 0], [0, 1, 0, 0, 0], [1, 0, 2, 0, 0]])
        let limited = try Self.trend(db, [("purchase", "total")], breakdown: "plan", limit: 1)
        #expect(limited.map(\.breakdown) == ["free", InsightLine.other, ""])
        let revenue = try Self.trend(db, [("purchase", "sum(revenue)")], breakdown: "plan")
        #expect(revenue.map(\.total) == [4, 10, 26])
    }

    @Test("trends: intervals in the time zone, hours, weeks from Sunday or Monday, previous period, formula")
    func trendsIntervals() throws {
        let db = try Self.loaded()
        // In Tokyo (UTC+9) u3's open at 23:30 UTC on 3 May is on 4 May.
        #expect(try Self.trend(db, [("app_open", "total")], timeZone: "Asia/Tokyo").map(\.values) == [[4, 2, 0, 2, 0]])
        let hours = try Self.trend(db, [("app_open", "total")], interval: .hour,
                                   range: InsightRange(app: "a", fromDay: Self.range.fromDay, toDay: Self.range.fromDay))
        #expect(hours[0].points.count == 24)
        #expect(hours[0].points[8] == "2024-05-01 08:00")
        #expect(hours[0].values.enumerated().filter { $0.element != 0 }.map(\.offset) == [8, 10, 11])
        // 1 May is a Wednesday, 5 May a Sunday: two Sunday weeks, one Monday week.
        let sunday = try Self.trend(db, [("app_open", "total")], interval: .week)
        #expect(sunday[0].points == ["2024-04-28", "2024-05-05"])
        #expect(sunday[0].values == [8, 0])
        let monday = try Self.trend(db, [("app_open", "total")], interval: .week, weekStart: .monday)
        #expect(monday[0].points == ["2024-04-29"])
        // The previous period: the 5 days before, 26-30 April.
        let compared = try Self.trend(db, [("app_open", "total")], compare: true)
        #expect(compared.map(\.compare) == ["current", "previous"])
        #expect(compared[1].points.first == "2024-04-26")
        #expect(compared[1].values == [0, 0, 1, 0, 0])
        // A/B: purchases per user who opened; a division by zero is 0.
        let ratio = try Self.trend(db, [("purchase", "total"), ("app_open", "dau")], formula: "A/B")
        #expect(ratio.map(\.values) == [[0.5, 1, 2, 0, 0]])
        #expect(ratio.map(\.total) == [1.25])
    }

    @Test("stickiness: users by the number of days they did the event on, exactly and at least")
    func stickiness() throws {
        let db = try Self.loaded()
        let runner = InsightQueryRunner(connection: db.connection)
        let exactly = try runner.stickiness(StickinessSpec(series: [try FunnelSyntax.matcher("app_open")]), range: Self.range)
        // u1 on 3 days (1, 2, 4 May); u2, u3 and u4 on one each (u2's 6 May is after the range).
        #expect(exactly.lines.map(\.points) == [["1", "2", "3", "4", "5"]])
        #expect(exactly.lines.map(\.values) == [[3, 0, 1, 0, 0]])
        let atLeast = try runner.stickiness(StickinessSpec(series: [try FunnelSyntax.matcher("app_open")], cumulative: true), range: Self.range)
        #expect(atLeast.lines.map(\.values) == [[4, 1, 1, 0, 0]])
    }

    @Test("lifecycle: new by the first event of any kind, returning, resurrecting, dormant negative")
    func lifecycle() throws {
        let db = try Self.loaded()
        let result = try InsightQueryRunner(connection: db.connection)
            .lifecycle(LifecycleSpec(event: try FunnelSyntax.matcher("app_open")), range: Self.range)
        #expect(result.lines.map(\.label) == ["new", "returning", "resurrecting", "dormant"])
        // u1 and u4 new on 1 May, u2 on 2 May; u3 (first event 20 April) resurrects on 3 May.
        #expect(result.lines.map(\.values) == [[2, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 1, 0], [0, -1, -2, -1, -1]])
    }

    @Test("paths: split at 30-minute gaps, repeats collapsed, grouped names, start and end points, edge limit")
    func paths() throws {
        let db = try Self.loaded()
        let runner = InsightQueryRunner(connection: db.connection)
        func edges(_ spec: PathsSpec) throws -> [String] {
            try runner.paths(spec, range: Self.range).edges.map { "\($0.step) \($0.source) > \($0.target) \($0.paths)" }
        }
        // u1's opens an hour apart are separate paths; u4's repeated taps and opens collapse.
        #expect(try edges(PathsSpec()) == ["1 app_open > purchase 3", "1 ux_tap > ux_scroll 1", "2 ux_scroll > app_open 1",
                                          "3 app_open > purchase 1"])
        #expect(try runner.paths(PathsSpec(), range: Self.range).paths == 4)
        #expect(try edges(PathsSpec(groups: ["ux_*"])) == ["1 app_open > purchase 3", "1 ux_* > app_open 1", "2 app_open > purchase 1"])
        #expect(try edges(PathsSpec(start: "app_open")) == ["1 app_open > purchase 4"])
        #expect(try edges(PathsSpec(end: "purchase", steps: 3)) == ["1 app_open > purchase 3", "1 ux_scroll > app_open 1",
                                                                    "2 app_open > purchase 1"])
        #expect(try edges(PathsSpec(edgeLimit: 1)) == ["1 app_open > purchase 3"])
    }

    @Test("the binary answers each insight in text, CSV and JSON, text within 100 columns")
    func commandLine() throws {
        let db = try Self.loaded()
        let range = ["--app", "a", "--from", "2024-05-01", "--to", "2024-05-05"]
        let csv = try db.run(["query", "trends", "--series", "app_open", "--math", "dau", "--format", "csv"] + range)
        #expect(csv.stdout == "series,breakdown,compare,point,value\n" + ["2024-05-01,2", "2024-05-02,2", "2024-05-03,1",
                "2024-05-04,1", "2024-05-05,0", "total,4"].map { "app_open (dau),,," + $0 + "\n" }.joined(), "\(csv.stderr)")
        let text = try db.run(["query", "trends", "--series", "purchase", "--breakdown", "plan", "--compare"] + range)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.components(separatedBy: "\n").allSatisfy { $0.count <= 100 }, "\(text.stdout)")
        #expect(text.stdout.contains("purchase (total) · (none) · previous"))
        let sticky = try db.run(["query", "stickiness", "--series", "app_open", "--format", "json"] + range)
        #expect(sticky.stdout.contains(#""point" : "3","#), "\(sticky.stderr)")
        let lifecycle = try db.run(["query", "lifecycle", "--event", "app_open", "--format", "csv"] + range)
        #expect(lifecycle.stdout.contains("dormant,,,2024-05-03,-2\n"), "\(lifecycle.stderr)")
        let paths = try db.run(["query", "paths", "--start", "app_open", "--format", "csv"] + range)
        #expect(paths.stdout == "step,source,target,paths\n1,app_open,purchase,4\n", "\(paths.stderr)")
        // An event never loaded: 0, and a warning with the nearest name.
        let typo = try db.run(["query", "trends", "--series", "app_opne", "--format", "csv"] + range)
        #expect(typo.status == 0)
        #expect(typo.stdout.contains("app_opne (total),,,total,0\n"))
        #expect(typo.stderr.contains("app a has no event named app_opne; counted as 0 users; nearest names: app_open"))
        // Retention by day prints 31 periods and the funnel long labels, both within 100 columns.
        let retention = try db.run(["query", "retention", "--app", "a", "--start", "app_open", "--return", "app_open",
                                    "--as-of", "2024-06-30"])
        #expect(retention.status == 0, "\(retention.stderr)")
        #expect(retention.stdout.components(separatedBy: "\n").allSatisfy { $0.count <= 100 }, "\(retention.stdout)")
        #expect(retention.stdout.contains("d27"))
        let funnel = try db.run(["query", "funnel", "--app", "a", "--step", "app_open where revenue is not set and plan is not set",
                                 "--step", "purchase where revenue > 5 and plan in (pro, free, team)"])
        #expect(funnel.status == 0, "\(funnel.stderr)")
        #expect(funnel.stdout.components(separatedBy: "\n").dropFirst().allSatisfy { $0.count <= 100 }, "\(funnel.stdout)")
    }
}
