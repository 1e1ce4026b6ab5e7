import Foundation
import FunnelCore
import FunnelIngest
import FunnelQuery
import PostgresClient
import IngestFixtures
import Testing

/// `funnel query funnel` over loaded events: filters in SQL, first-time steps, the date range,
/// person breakdowns, strict funnels over every event, and the errors that name what is wrong.
@Suite("Funnel queries over loaded events")
struct FunnelQueryTests {
    /// A database with a few users' custom events, installs and opens loaded.
    static func loaded() throws -> LoaderFixture {
        let db = try LoaderFixture()
        func event(_ id: Int, _ user: String, _ name: String, _ time: String, _ properties: String = "{}") -> String {
            #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(user)","event":"\#(name)","occurred_at":"2024-05-\#(time)Z","properties":\#(properties)}"#
        }
        let lines = [
            // u1: email signup in 10 minutes.
            event(1, "u1", "signup_started", "01T10:00:00", #"{"plan":"pro","price":9.5}"#),
            event(2, "u1", "signup_completed", "01T10:10:00", #"{"method":"email"}"#),
            // u2: apple signup after an hour.
            event(3, "u2", "signup_started", "01T10:00:00", #"{"plan":"free","price":0}"#),
            event(4, "u2", "signup_completed", "01T11:00:00", #"{"method":"apple"}"#),
            // u3: started twice (first on 28 April, before the range), completed by email.
            event(5, "u3", "signup_started", "01T09:00:00", #"{"plan":"Pro Team"}"#),
            event(6, "u3", "signup_completed", "01T09:05:00", #"{"method":"email"}"#),
            // u4: starts on the last day of the range, completes after it.
            event(7, "u4", "signup_started", "03T23:50:00", #"{"plan":"pro"}"#),
            event(8, "u4", "signup_completed", "04T00:05:00", #"{"method":"email"}"#),
        ]
        let early = #"{"event_id":"0","app_id":"a","user_id":"u3","event":"signup_started","occurred_at":"2024-04-28T09:00:00Z","properties":{}}"#
        let installs = installsHeader + "i1,a,u1,2024-05-01T09:00:00Z,adnova,ios,DE,,,\ni2,a,u2,2024-05-01T09:00:00Z,organic,android,US,,,\n"
            + "i3,a,u3,2024-04-28T08:00:00Z,adnova,android,US,,,\n"
        let opens = "event_id,app_id,user_id,opened_at\no1,a,u1,2024-05-01T10:05:00Z\n"
        let reports = try db.ingest([
            try db.file("events.ndjson", ([early] + lines).joined(separator: "\n") + "\n"),
            try db.file("installs.csv", installs), try db.file("opens.csv", opens),
        ])
        #expect(reports.allSatisfy { $0.status == .loaded })
        return db
    }

    static func spec(_ steps: [String], window: String = "2h", order: EventFunnelOrder = .ordered,
                     exclusions: [String] = [], stepMath: StepMath = .total) throws -> EventFunnelSpec {
        let matchers = try steps.map { text throws(FunnelSyntax.Failure) in try FunnelSyntax.matcher(text) }
        return EventFunnelSpec(steps: matchers, order: order, windowMicros: try FunnelSyntax.window(window),
                               exclusions: try exclusions.map { text throws(FunnelSyntax.Failure) in
                                   try FunnelSyntax.exclusion(text, stepCount: matchers.count) },
                               stepMath: stepMath)
    }

    static func counts(_ db: LoaderFixture, _ spec: EventFunnelSpec, scope: FunnelQueryScope = FunnelQueryScope(app: "a")) throws -> [Int] {
        try FunnelQueryRunner(connection: db.connection).run(spec, scope: scope).series.first?.steps.map(\.users) ?? []
    }

    static func day(_ text: String) -> Int64 {
        let parts = text.split(separator: "-").map { Int($0)! }
        let date = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"),
                                  year: parts[0], month: parts[1], day: parts[2]).date!
        return Int64(date.timeIntervalSince1970 * 1_000_000)
    }

    @Test("property filters, each operator, decide which events fill a step")
    func filters() throws {
        let db = try Self.loaded()
        let cases: [(String, Int)] = [
            ("signup_completed where method = email", 3),
            ("signup_completed where method != email", 1),
            ("signup_completed where method in (email, apple)", 4),
            ("signup_completed where method not in (email)", 1),
            ("signup_completed where method contains MAI", 3),
            ("signup_completed where method not contains mai", 1),
            ("signup_completed where method ~ '^a'", 1),
            ("signup_completed where method !~ '^a'", 3),
            ("signup_completed where method is set", 4),
            ("signup_completed where coupon is not set", 4),
        ]
        for (step, converted) in cases {
            #expect(try Self.counts(db, try Self.spec(["signup_started", step], window: "1d")) == [4, converted], "\(step)")
        }
        #expect(try Self.counts(db, try Self.spec(["signup_started where price > 1", "signup_completed"], window: "1d")) == [1, 1])
        #expect(try Self.counts(db, try Self.spec(["signup_started where price < 1", "signup_completed"], window: "1d")) == [1, 1])
        #expect(try Self.counts(db, try Self.spec(["signup_started where plan = 'Pro Team'", "signup_completed"], window: "1d")) == [1, 1])
    }

    @Test("the window is absolute time: 30 minutes keeps the fast signups only")
    func window() throws {
        let db = try Self.loaded()
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "30m")) == [4, 3])
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1h")) == [4, 4])
    }

    @Test("the date range applies to step 1: a completion after the range still counts within the window")
    func dateRange() throws {
        let db = try Self.loaded()
        let scope = FunnelQueryScope(app: "a", fromMicros: Self.day("2024-05-01"), toMicros: Self.day("2024-05-04"))
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1h"), scope: scope) == [4, 4])
        let firstDay = FunnelQueryScope(app: "a", fromMicros: Self.day("2024-05-01"), toMicros: Self.day("2024-05-02"))
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1h"), scope: firstDay) == [3, 3])
    }

    @Test("first-time step math: only a user's first ever occurrence of a step counts")
    func firstTime() throws {
        let db = try Self.loaded()
        let scope = FunnelQueryScope(app: "a", fromMicros: Self.day("2024-05-01"), toMicros: Self.day("2024-05-04"))
        // u3's first signup_started was on 28 April, before the range: not in the funnel.
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1h", stepMath: .firstTime),
                                scope: scope) == [3, 3])
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1h"), scope: scope) == [4, 4])
    }

    @Test("first_time counts a step on the user's first event of its name; first_time_with_filters on the first passing the filters")
    func firstTimeModes() throws {
        let db = try LoaderFixture()
        let lines = [
            #"{"event_id":"1","app_id":"a","user_id":"v1","event":"buy","occurred_at":"2024-05-01T09:00:00Z","properties":{"plan":"free"}}"#,
            #"{"event_id":"2","app_id":"a","user_id":"v1","event":"buy","occurred_at":"2024-05-01T10:00:00Z","properties":{"plan":"pro"}}"#,
            #"{"event_id":"3","app_id":"a","user_id":"v1","event":"rate","occurred_at":"2024-05-01T10:05:00Z","properties":{}}"#,
            #"{"event_id":"4","app_id":"a","user_id":"v2","event":"buy","occurred_at":"2024-05-01T11:00:00Z","properties":{"plan":"pro"}}"#,
            #"{"event_id":"5","app_id":"a","user_id":"v2","event":"rate","occurred_at":"2024-05-01T11:05:00Z","properties":{}}"#,
        ]
        _ = try db.ingest([try db.file("events.ndjson", lines.joined(separator: "\n") + "\n")])
        let steps = ["buy where plan = pro", "rate"]
        #expect(try Self.counts(db, try Self.spec(steps, window: "1h")) == [2, 2])
        #expect(try Self.counts(db, try Self.spec(steps, window: "1h", stepMath: .firstTime)) == [1, 1])
        #expect(try Self.counts(db, try Self.spec(steps, window: "1h", stepMath: .firstTimeWithFilters)) == [2, 2])
    }

    @Test("per-step math: first time on step 1, total on step 2, as PostHog sets it per step")
    func perStepMath() throws {
        let db = try Self.loaded()
        let spec = try Self.spec(["signup_started", "signup_started"], window: "7d", stepMath: .firstTime)
        // u3 started on 28 April and 1 May. First time on both steps: step 2 can only be the first
        // start, which step 1 took. Total on step 2: the start on 1 May follows the first one.
        #expect(try Self.counts(db, spec) == [4, 0])
        let result = try FunnelQueryRunner(connection: db.connection).run(spec, scope: FunnelQueryScope(app: "a"),
                                                                          stepMaths: [.firstTime, .total])
        #expect(result.series.first?.steps.map(\.users) == [4, 1])
        #expect(result.summary.contains("step math 1 first_time, 2 total"))
        let cli = try db.run(["query", "funnel", "--app", "a", "--step", "signup_started", "--step", "signup_started",
                              "--window", "7d", "--step-math", "first_time,total", "--format", "csv"])
        #expect(cli.stdout.contains(",2,signup_started,1,"), "\(cli.stdout)\(cli.stderr)")
        let wrong = try db.run(["query", "funnel", "--app", "a", "--step", "a", "--step", "b", "--step-math", "total,total,total"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("one per step (2)"), "\(wrong.stderr)")
    }

    @Test("funnel trends: each day of step 1 counts its entries and their conversions, whenever they convert")
    func trends() throws {
        let db = try LoaderFixture()
        func event(_ id: Int, _ user: String, _ name: String, _ time: String) -> String {
            #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(user)","event":"\#(name)","occurred_at":"2024-05-\#(time)Z"}"#
        }
        let lines = [
            event(1, "t1", "started", "01T10:00:00"), event(2, "t1", "completed", "01T10:10:00"),
            event(3, "t2", "started", "01T23:50:00"), event(4, "t2", "completed", "02T00:05:00"),
            event(5, "t3", "started", "01T09:00:00"), event(6, "t3", "started", "03T09:00:00"),
            event(7, "t3", "completed", "03T09:30:00"),
            event(8, "t4", "started", "02T12:00:00"), event(9, "t4", "x", "02T12:01:00"), event(10, "t4", "completed", "02T12:05:00"),
        ]
        _ = try db.ingest([try db.file("events.ndjson", lines.joined(separator: "\n") + "\n")])
        let spec = try Self.spec(["started", "completed"], window: "1h", exclusions: ["x"])
        let points = try FunnelQueryRunner(connection: db.connection).trends(spec, scope: FunnelQueryScope(app: "a"), interval: .day)
        // 1 May: t1, t2 (converted after midnight) and t3 (not within the hour) entered, two converted;
        // 2 May: t4's entry is voided by x; 3 May: t3 again, converted.
        #expect(points.map(\.startMicros) == [Self.day("2024-05-01"), Self.day("2024-05-02"), Self.day("2024-05-03")])
        #expect(points.map(\.entered) == [3, 0, 1])
        #expect(points.map(\.converted) == [2, 0, 1])
        let weekly = try FunnelQueryRunner(connection: db.connection).trends(spec, scope: FunnelQueryScope(app: "a"), interval: .week)
        // 1 May 2024 was a Wednesday: its week starts on Sunday 28 April.
        #expect(weekly.map(\.startMicros) == [Self.day("2024-04-28")])
        #expect(weekly.map(\.entered) == [3])
        // Every interval of --from..--to is listed, those at the edges nobody entered in at 0.
        let ranged = try FunnelQueryRunner(connection: db.connection).trends(
            spec, scope: FunnelQueryScope(app: "a", fromMicros: Self.day("2024-04-29"), toMicros: Self.day("2024-05-06")), interval: .day)
        #expect(ranged.map(\.startMicros) == ["04-29", "04-30", "05-01", "05-02", "05-03", "05-04", "05-05"].map { Self.day("2024-" + $0) })
        #expect(ranged.map(\.entered) == [0, 0, 3, 0, 1, 0, 0])
        let monthly = try FunnelQueryRunner(connection: db.connection).trends(
            spec, scope: FunnelQueryScope(app: "a", fromMicros: Self.day("2024-03-15"), toMicros: Self.day("2024-05-06")), interval: .month)
        #expect(monthly.map(\.startMicros) == [Self.day("2024-03-01"), Self.day("2024-04-01"), Self.day("2024-05-01")])
        #expect(monthly.map(\.entered) == [0, 0, 3])
        let cli = try db.run(["query", "funnel", "--app", "a", "--step", "started", "--step", "completed", "--window", "1h",
                              "--exclude", "x", "--trend", "day", "--format", "csv"])
        #expect(cli.stdout == "interval_start,entered,converted,conversion\n2024-05-01,3,2,0.6666666666666666\n"
            + "2024-05-02,0,0,\n2024-05-03,1,1,1.0\n", "\(cli.stderr)")
    }

    @Test("every kind is a step: install then a custom event, install then app_open")
    func builtInKinds() throws {
        let db = try Self.loaded()
        // u3 installed on 28 April and started that day; the completion three days later is out of the window.
        #expect(try Self.counts(db, try Self.spec(["install", "signup_started", "signup_completed"], window: "1d")) == [3, 3, 2])
        #expect(try Self.counts(db, try Self.spec(["install", "app_open"], window: "1d")) == [3, 1])
    }

    @Test("strict funnels read every event of the user: an app_open in between breaks the step")
    func strictReadsEverything() throws {
        let db = try Self.loaded()
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1d", order: .strict)) == [4, 3])
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1d")) == [4, 4])
    }

    @Test("events at one instant that differ are taken in event id order, whatever order they were loaded in")
    func tiesInEventIDOrder() throws {
        let db = try LoaderFixture()
        func event(_ id: String, _ user: String, _ name: String, _ time: String, _ platform: String) -> String {
            #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(user)","event":"\#(name)","occurred_at":"2024-05-\#(time)Z","properties":{"platform":"\#(platform)"}}"#
        }
        let lines = [
            // w1: two starts at one instant, the later id loaded first; first touch is id 1's value, a.
            event("9", "w1", "signup_started", "01T10:00:00", "b"),
            event("1", "w1", "signup_started", "01T10:00:00", "a"),
            event("5", "w1", "signup_completed", "01T10:05:00", "b"),
            // w2: the same pair loaded in id order, no completion.
            event("2", "w2", "signup_started", "01T11:00:00", "a"),
            event("3", "w2", "signup_started", "01T11:00:00", "b"),
            // w3: no tie, loaded out of time order; converts under b.
            event("8", "w3", "signup_completed", "01T12:10:00", "b"),
            event("7", "w3", "signup_started", "01T12:00:00", "b"),
            // w4: a start and a completion at one instant (ids against step order) convert.
            event("6", "w4", "signup_completed", "01T13:00:00", "c"),
            event("4", "w4", "signup_started", "01T13:00:00", "c"),
        ]
        _ = try db.ingest([try db.file("events.ndjson", lines.joined(separator: "\n") + "\n")])
        var spec = try Self.spec(["signup_started", "signup_completed"], window: "1h")
        spec.breakdown = FunnelBreakdown(property: "platform", source: .event, attribution: .firstTouch)
        let result = try FunnelQueryRunner(connection: db.connection).run(spec, scope: FunnelQueryScope(app: "a"))
        #expect(Dictionary(uniqueKeysWithValues: result.series.map { ($0.value ?? "-", $0.steps.map(\.users)) })
            == ["a": [2, 1], "b": [1, 1], "c": [1, 1]])
        #expect(result.eventsRead == lines.count)
        spec.breakdown?.attribution = .lastTouch
        let last = try FunnelQueryRunner(connection: db.connection).run(spec, scope: FunnelQueryScope(app: "a"))
        #expect(Dictionary(uniqueKeysWithValues: last.series.map { ($0.value ?? "-", $0.steps.map(\.users)) })
            == ["b": [3, 2], "c": [1, 1]])
    }

    @Test("an exclusion between the steps leaves the user out; a person breakdown uses the first install")
    func exclusionAndPersonBreakdown() throws {
        let db = try Self.loaded()
        #expect(try Self.counts(db, try Self.spec(["signup_started", "signup_completed"], window: "1d", exclusions: ["app_open"])) == [3, 3])
        var spec = try Self.spec(["signup_started", "signup_completed where method = email"], window: "1d")
        spec.breakdown = FunnelBreakdown(property: "network", source: .person)
        let result = try FunnelQueryRunner(connection: db.connection).run(spec, scope: FunnelQueryScope(app: "a"))
        #expect(result.series.map(\.value) == ["adnova", "organic", nil])
        #expect(result.series.map { $0.steps.map(\.users) } == [[2, 2], [1, 0], [1, 1]])
        spec.breakdown = FunnelBreakdown(property: "plan", source: .event, attribution: .firstTouch)
        let byPlan = try FunnelQueryRunner(connection: db.connection).run(spec, scope: FunnelQueryScope(app: "a"))
        #expect(Dictionary(uniqueKeysWithValues: byPlan.series.map { ($0.value ?? "-", $0.steps.map(\.users)) })
            == ["pro": [2, 2], "free": [1, 0], "Pro Team": [1, 1]])
    }

    @Test("person properties: the first install's, then $set_once's earliest and $set's latest value of each key")
    func personPropertiesFromSet() throws {
        let db = try Self.loaded()
        func event(_ id: String, _ user: String, _ time: String, _ properties: String) -> String {
            #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(user)","event":"profile_updated","occurred_at":"2024-05-\#(time)Z","properties":\#(properties)}"#
        }
        let lines = [
            // u1: tier free, then pro (the latest $set wins, whatever the file order).
            event("s2", "u1", "02T10:00:00", #"{"$set":{"tier":"pro"}}"#),
            event("s1", "u1", "01T08:00:00", #"{"$set":{"tier":"free"}}"#),
            // u2: $set_once keeps the first value; a $set of the country overrides the install's US.
            event("s3", "u2", "01T08:00:00", #"{"$set_once":{"tier":"trial"}}"#),
            event("s4", "u2", "02T08:00:00", #"{"$set_once":{"tier":"free"},"$set":{"country":"CA"}}"#),
            // u4 has no install: its person properties come from $set alone.
            event("s5", "u4", "01T08:00:00", #"{"$set":{"tier":"pro","country":"FR"}}"#),
        ]
        let reports = try db.ingest([try db.file("events_profiles.ndjson", lines.joined(separator: "\n") + "\n")])
        #expect(reports.map(\.counts.rowsLoaded) == [5])
        var spec = try Self.spec(["signup_started", "signup_completed where method = email"], window: "1d")
        spec.breakdown = FunnelBreakdown(property: "tier", source: .person)
        let runner = FunnelQueryRunner(connection: db.connection)
        let byTier = try runner.run(spec, scope: FunnelQueryScope(app: "a"))
        // pro: u1 (converted), u4 (converted); trial: u2 (apple: not converted); (none): u3 (converted).
        #expect(byTier.series.map(\.value) == ["pro", "trial", nil])
        #expect(byTier.series.map { $0.steps.map(\.users) } == [[2, 2], [1, 0], [1, 1]])
        spec.breakdown = FunnelBreakdown(property: "country", source: .person)
        let byCountry = try runner.run(spec, scope: FunnelQueryScope(app: "a"))
        #expect(Dictionary(uniqueKeysWithValues: byCountry.series.map { ($0.value ?? "-", $0.steps.map(\.users)) })
            == ["DE": [1, 1], "CA": [1, 0], "US": [1, 1], "FR": [1, 1]])
        spec.breakdown = FunnelBreakdown(property: "plan_tier", source: .person)
        #expect(throws: FunnelQueryError("--breakdown plan_tier --breakdown-type person: no user has this property "
            + "(person properties: network, campaign, country, platform, and keys events set under \"$set\" or \"$set_once\")")) {
            _ = try runner.run(spec, scope: FunnelQueryScope(app: "a"))
        }
    }

    @Test("time to convert: average, median and bins over the users who reached the step")
    func timeToConvert() throws {
        let db = try Self.loaded()
        let result = try FunnelQueryRunner(connection: db.connection).run(
            try Self.spec(["signup_started", "signup_completed"], window: "1d"), scope: FunnelQueryScope(app: "a"))
        let conversion = result.timeToConvert(from: 1, to: 2, bins: 2)
        // 10, 60, 5 and 15 minutes.
        #expect(conversion.users == 4)
        #expect(conversion.averageSeconds == 1_350)
        #expect(conversion.medianSeconds == 750)
        // PostHog's bins: from 300 s in ceil(3300 / 2) = 1,650 s steps, one bin more for the slowest.
        #expect(conversion.bins.map(\.users) == [3, 0, 1])
        #expect(conversion.bins.map(\.fromSeconds) == [300, 1_950, 3_600])
        #expect(result.usersCSV().split(separator: "\n").count == 5)
    }

    @Test("an event never loaded counts 0 users, with a warning naming the nearest names")
    func unknownEvent() throws {
        let db = try Self.loaded()
        var warnings: [String] = []
        let runner = FunnelQueryRunner(connection: db.connection, warn: { warnings.append($0) })
        let result = try runner.run(try Self.spec(["signup_started", "signup_finished where method = email"]),
                                    scope: FunnelQueryScope(app: "a"))
        #expect(result.series.first?.steps.map(\.users) == [4, 0])
        #expect(warnings == ["app a has no event named signup_finished; counted as 0 users; "
            + "nearest names: signup_started, signup_completed; event names are case-sensitive"])
        // The app picked by default: the warning names --app and the app that has the event.
        try db.connection.query("""
            insert into raw_events (event_id, app_id, user_id, event, occurred_at, properties, file_id)
            values ('b1', 'b', 'v1', 'level_up', '2024-05-01T10:00:00Z', '{}', 0)
            """)
        warnings = []
        _ = try runner.run(try Self.spec(["signup_started", "level_up"]), scope: FunnelQueryScope())
        #expect(warnings == ["app a has no event named level_up; counted as 0 users; app b has it (choose one with --app); "
            + "event names are case-sensitive"])
        warnings = []
        _ = try runner.run(try Self.spec(["signup_started", "zzz"]), scope: FunnelQueryScope())
        #expect(warnings == ["app a has no event named zzz; counted as 0 users; a is the default app (the most installs); "
            + "others: b (choose one with --app); event names are case-sensitive"])
    }

    @Test("bad definitions are refused naming the property or the pattern")
    func errors() throws {
        let db = try Self.loaded()
        let runner = FunnelQueryRunner(connection: db.connection)
        #expect(throws: FunnelQueryError("step 2 (signup_completed where channel = x): no signup_completed event has a property channel")) {
            _ = try runner.run(try Self.spec(["signup_started", "signup_completed where channel = x"]), scope: FunnelQueryScope(app: "a"))
        }
        #expect(throws: FunnelQueryError.self) {
            _ = try runner.run(try Self.spec(["signup_started", "signup_completed where method ~ '('"]), scope: FunnelQueryScope(app: "a"))
        }
    }

    /// Users of the matcher-limit tests: v1 a, x, b (x is the 64th matcher), v3 a, y, b (y the
    /// 65th), v2 a then b and c at one instant (a tie), v4 s1 to s30 a minute apart.
    static func manyMatchers() throws -> LoaderFixture {
        let db = try LoaderFixture()
        var id = 0
        func event(_ user: String, _ name: String, _ minute: Int, _ n: Int = 1) -> String {
            id += 1
            let time = String(format: "2024-05-01T%02d:%02d:00Z", 10 + minute / 60, minute % 60)
            return #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(user)","event":"\#(name)","occurred_at":"\#(time)","properties":{"n":\#(n)}}"#
        }
        let lines = [event("v1", "a", 0), event("v1", "x", 5), event("v1", "b", 10),
                     event("v3", "a", 0), event("v3", "y", 5), event("v3", "b", 10),
                     event("v2", "a", 0), event("v2", "b", 10), event("v2", "c", 10, 99)]
            + (1...30).map { event("v4", "s\($0)", $0) }
        let reports = try db.ingest([try db.file("events.ndjson", lines.joined(separator: "\n") + "\n")])
        #expect(reports.allSatisfy { $0.status == .loaded })
        return db
    }

    @Test("more than 63 matchers answer: the 64th and 65th exclusions void their attempts, ties included")
    func beyondSixtyThreeMatchers() throws {
        let db = try Self.manyMatchers()
        // Steps are matchers 1 and 2; 61 exclusions that match nothing; then x (64th), y (65th).
        let exclusions = (0..<61).map { "c where n = \($0)" } + ["x", "y"]
        let spec = try Self.spec(["a", "b"], window: "1h", exclusions: exclusions)
        #expect(spec.problem() == nil)
        #expect(try Self.counts(db, spec) == [1, 1])
        let users = try FunnelQueryRunner(connection: db.connection).run(spec, scope: FunnelQueryScope(app: "a")).users
        #expect(Set(users.map(\.user)) == ["v1", "v2", "v3"])
        #expect(users.filter { $0.result.furthestStep == 0 }.map(\.user).sorted() == ["v1", "v3"])
        #expect(try Self.counts(db, try Self.spec(["a", "b"], window: "1h", exclusions: Array(exclusions.prefix(62)))) == [2, 2])
        // The command line answers too (it died of an arithmetic overflow at the 64th matcher).
        let run = try db.run(["query", "funnel", "--app", "a", "--step", "a", "--step", "b", "--window", "1h", "--format", "csv"]
            + exclusions.flatMap { ["--exclude", $0] })
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test("30 steps and 4 exclusions with first-time step math (64 matchers) answer")
    func thirtyStepsFirstTime() throws {
        let db = try Self.manyMatchers()
        let steps = (1...30).map { "s\($0)" }
        let exclusions = ["x where n = 500", "x where n = 501", "y where n = 502", "y where n = 503"]
        for math in [StepMath.firstTime, .firstTimeWithFilters, .total] {
            let spec = try Self.spec(steps, window: "1d", exclusions: exclusions, stepMath: math)
            #expect(try Self.counts(db, spec) == [Int](repeating: 1, count: 30), "\(math)")
        }
        let spec = try Self.spec(steps.reversed(), window: "1d", exclusions: exclusions, stepMath: .firstTime)
        #expect(try Self.counts(db, spec) == [1] + [Int](repeating: 0, count: 29))
    }

    @Test("more than 100 exclusions or 30 steps, and a number that is not decimal, are usage errors naming the limit or the value")
    func limitsOnTheCommandLine() throws {
        let db = try Self.manyMatchers()
        let exclusions = (0..<101).flatMap { ["--exclude", "c where n = \($0)"] }
        let tooMany = try db.run(["query", "funnel", "--app", "a", "--step", "a", "--step", "b"] + exclusions)
        #expect(tooMany.status == 2)
        #expect(tooMany.stderr.contains("a funnel has at most 100 exclusions, got 101"), "\(tooMany.stderr)")
        let steps = try db.run(["query", "funnel", "--app", "a"] + (1...31).flatMap { ["--step", "s\(min($0, 30))"] })
        #expect(steps.status == 2)
        #expect(steps.stderr.contains("a funnel has at most 30 steps, got 31"), "\(steps.stderr)")
        for command in ["funnel", "retention"] {
            let flag = command == "funnel" ? "--step" : "--start"
            let rest = command == "funnel" ? ["--step", "b"] : []
            let hex = try db.run(["query", command, "--app", "a", flag, "a where n > 0x10"] + rest)
            #expect(hex.status == 2, "\(command): \(hex.stderr)")
            #expect(hex.stderr.contains("\"a where n > 0x10\": expected a decimal number such as 10, -2.5 or 1e3 after '>' or '<', not '0x10'"),
                    "\(command): \(hex.stderr)")
            #expect(!hex.stderr.contains("22P02"))
        }
        for literal in ["10", "-2.5", "+3", ".5", "1.", "1e3", "2E-4", "1e1000"] {
            #expect(FunnelSyntax.isDecimalNumber(literal), "\(literal)")
            // Whatever the syntax takes, PostgreSQL's numeric reads.
            #expect(try db.connection.query("select $1::numeric is not null", [literal]).scalar(Bool.self), "\(literal)")
        }
        for literal in ["0x10", "0b1", "0o7", "1_000", "inf", "NaN", "Infinity", "", "-", ".", "e3", "1e", "1e+", " 1", "1 ", "1e1001", "1e00001001", "--1", "1.2.3"] {
            #expect(!FunnelSyntax.isDecimalNumber(literal), "\(literal)")
        }
    }

    @Test("the command line answers the issue's example in text, CSV and JSON")
    func commandLine() throws {
        let db = try Self.loaded()
        let arguments = ["query", "funnel", "--app", "a", "--step", "signup_started", "--step", "signup_completed where method = email",
                         "--window", "30m", "--exclude", "app_open", "--breakdown", "platform", "--breakdown-type", "person"]
        let json = try db.run(arguments + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let series = document?["series"] as? [[String: Any]] ?? []
        let users = series.map { ($0["breakdown"] as? String ?? "-", ($0["steps"] as? [[String: Any]] ?? []).map { $0["users"] as? Int ?? -1 }) }
        // android: u2 (apple, not email) and u3 (email in 5 minutes); no install: u4 (email in 15
        // minutes); ios: u1, whose app_open between the steps excludes them.
        #expect(users.map(\.0) == ["android", "-", "ios"])
        #expect(users.map(\.1) == [[2, 1], [1, 1], [0, 0]])
        #expect(series.last?["excluded"] as? Int == 1)
        let text = try db.run(arguments)
        #expect(text.stdout.contains("platform = android"))
        let csv = try db.run(arguments + ["--format", "csv"])
        #expect(csv.stdout.hasPrefix("breakdown,step,event,users,conversion_from_first"))
        let bad = try db.run(["query", "funnel", "--step", "signup_started", "--step", "x", "--window", "0m"])
        #expect(bad.status == 64 || bad.status == 2)
        #expect(bad.stderr.contains("the window must be longer than 0"))
    }
}
