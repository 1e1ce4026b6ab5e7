import Foundation
import PostgresClient
import Testing
import TestSupport

/// `[[trends]]` and `[[lifecycle]]` in funnel.toml: computed by `funnel compute` into
/// fct_insights (dash_trends, dash_lifecycle), equal to `funnel query` over the same range, and
/// checked against hand-computed values, through the binary and a real PostgreSQL.
@Suite("Computed trends and lifecycle")
struct ComputedInsightsTests {
    @Test("computed equals ad hoc for the last `days` days; hand-computed totals, users and lifecycle; a bad formula fails compute")
    func computedEqualsAdHoc() throws {
        let settings = try TestCluster.freshDatabase()
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-insights")
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appending(path: "funnel.toml")
        let environment = ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": config.path]
        func funnel(_ arguments: [String]) throws -> FunnelExecutable.Outcome {
            try FunnelExecutable.run(arguments, environment: environment, currentDirectory: folder)
        }
        var id = 0
        func event(_ user: String, _ name: String, _ time: String, _ properties: String = "{}") -> String {
            id += 1
            return #"{"event_id":"e\#(id)","app_id":"a","user_id":"\#(user)","event":"\#(name)","occurred_at":"2024-\#(time)Z","properties":\#(properties)}"#
        }
        // u1 opens on 1 (twice), 2 and 4 May; u2 on 2 and 6 May; u3 on 3 May; u4 on 1 May (twice).
        let events = [
            event("u1", "app_open", "05-01T10:00:00", #"{"plan":"pro"}"#), event("u1", "app_open", "05-01T11:00:00", #"{"plan":"pro"}"#),
            event("u1", "app_open", "05-02T09:00:00", #"{"plan":"pro"}"#), event("u1", "purchase", "05-02T09:10:00", #"{"revenue":10}"#),
            event("u1", "app_open", "05-04T10:00:00", #"{"plan":"pro"}"#),
            event("u2", "app_open", "05-02T10:00:00", #"{"plan":"free"}"#), event("u2", "purchase", "05-02T10:05:00", #"{"revenue":4}"#),
            event("u2", "app_open", "05-06T08:00:00", #"{"plan":"free"}"#),
            event("u3", "app_open", "05-03T23:30:00"),
            event("u4", "app_open", "05-01T08:03:00", #"{"plan":"free"}"#), event("u4", "app_open", "05-01T08:04:00", #"{"plan":"free"}"#),
        ]
        try Data((events.joined(separator: "\n") + "\n").utf8).write(to: folder.appending(path: "events.ndjson"))
        try Data(("event_id,app_id,user_id,installed_at,network\n"
            + (1...4).map { "i\($0),a,u\($0),2024-05-01T07:00:00Z,meta" }.joined(separator: "\n") + "\n").utf8)
            .write(to: folder.appending(path: "installs.csv"))
        try """
            [[trends]]
            name = "opens"
            series = ["app_open", "app_open", "purchase"]
            math = ["total", "dau", "sum(revenue)"]
            days = 6

            [[trends]]
            name = "opens_by_plan"
            series = ["app_open"]
            breakdown = "plan"
            days = 6

            [[lifecycle]]
            name = "openers"
            event = "app_open"
            days = 6
            """.write(to: config, atomically: true, encoding: .utf8)
        #expect(try funnel(["ingest", folder.appending(path: "events.ndjson").path, folder.appending(path: "installs.csv").path, "-q"]).status == 0)
        let compute = try funnel(["compute"])
        #expect(compute.status == 0, "\(compute.stderr)")

        let connection = try settings.connect()
        func computed(_ sql: String) throws -> [String: [Double?]] {
            var byLine: [String: [Double?]] = [:]
            for row in try connection.query(sql) {
                let key = try row.decode(String.self, at: 0)
                byLine[key, default: []].append(try row.isNull(at: 1) ? nil : row.decode(Double.self, at: 1))
            }
            return byLine
        }
        let opens = try computed("""
            select line_index::text || ':' || series, value from funnel.dash_trends where app_id = 'a' and trend = 'opens'
            order by line_index, interval_start
            """)
        // 1 to 6 May (the app's last date with data is 6 May): hand-computed.
        #expect(opens["0:app_open (total)"] == [4, 2, 1, 1, 0, 1], "\(opens)")
        #expect(opens["1:app_open (dau)"] == [2, 2, 1, 1, 0, 1], "\(opens)")
        #expect(opens["2:purchase (sum(revenue))"] == [0, 14, 0, 0, 0, 0], "\(opens)")
        let lifecycle = try computed("""
            select status, users::double precision from funnel.dash_lifecycle where app_id = 'a' and lifecycle = 'openers'
            order by status, interval_start
            """)
        // "new" is the interval of the user's first event of any kind: every install is on 1 May,
        // so only u1 and u4 are new (they open that day); u1 is back on 2 May (returning); u2 on
        // 2 May, u3 on 3 May, u1 on 4 May and u2 on 6 May come back after a gap (resurrecting).
        #expect(lifecycle["new"] == [2, 0, 0, 0, 0, 0], "\(lifecycle)")
        #expect(lifecycle["returning"] == [0, 1, 0, 0, 0, 0], "\(lifecycle)")
        #expect(lifecycle["resurrecting"] == [0, 1, 1, 1, 0, 1], "\(lifecycle)")
        #expect(lifecycle["dormant"] == [0, -1, -2, -1, -1, 0], "\(lifecycle)")

        // Computed equals ad hoc, line by line and point by point.
        func adHoc(_ arguments: [String]) throws -> [[String: Any]] {
            let outcome = try funnel(["query"] + arguments + ["--app", "a", "--from", "2024-05-01", "--to", "2024-05-06", "--format", "json"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
            return document["lines"] as? [[String: Any]] ?? []
        }
        func compare(_ lines: [[String: Any]], insight: String, name: String) throws {
            let rows = try connection.query("""
                select line_index, line, breakdown, point, value from funnel.fct_insights
                where app_id = 'a' and insight = $1 and name = $2 order by line_index, point_index
                """, [insight, name])
            var stored: [[String]] = []
            for row in rows {
                stored.append([String(try row.decode(Int.self, at: 0)), try row.decode(String.self, at: 1), try row.decode(String.self, at: 2),
                               try row.decode(String.self, at: 3), try row.isNull(at: 4) ? "null" : String(try row.decode(Double.self, at: 4))])
            }
            var expected: [[String]] = []
            for (index, line) in lines.enumerated() {
                for point in line["points"] as? [[String: Any]] ?? [] {
                    expected.append([String(index), line["series"] as? String ?? "?", line["breakdown"] as? String ?? "",
                                     point["point"] as? String ?? "?", (point["value"] as? NSNumber).map { String($0.doubleValue) } ?? "null"])
                }
            }
            #expect(!stored.isEmpty)
            #expect(stored == expected, "\(name)")
        }
        try compare(try adHoc(["trends", "--series", "app_open", "--series", "app_open", "--series", "purchase",
                               "--math", "total", "--math", "dau", "--math", "sum(revenue)"]), insight: "trends", name: "opens")
        try compare(try adHoc(["trends", "--series", "app_open", "--breakdown", "plan"]), insight: "trends", name: "opens_by_plan")
        try compare(try adHoc(["lifecycle", "--event", "app_open"]), insight: "lifecycle", name: "openers")
        let plans = try connection.query("select distinct breakdown from funnel.dash_trends where trend = 'opens_by_plan' order by 1")
            .map { try $0.decode(String.self, at: 0) }
        #expect(plans == ["", "free", "pro"])

        // A formula naming a series the entry does not have stops compute, naming the entry.
        try """
            [[trends]]
            name = "ratio"
            series = ["app_open"]
            formula = "A/B"
            """.write(to: config, atomically: true, encoding: .utf8)
        let bad = try funnel(["compute"])
        #expect(bad.status != 0)
        #expect((bad.stderr + bad.stdout).contains("[[trends]] ratio"), "\(bad.stderr)")
    }

    @Test("[[trends]] and [[lifecycle]] errors name the entry and key")
    func configurationErrors() throws {
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-insights-config")
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appending(path: "funnel.toml")
        for (text, message) in [
            ("[[trends]]\nname = \"t\"\n", "trends[0].series"),
            ("[[trends]]\nname = \"t\"\nseries = [\"a\"]\nmath = \"nope\"\n", "trends[0].math"),
            ("[[trends]]\nname = \"t\"\nseries = [\"a\"]\nmath = \"weekly_active\"\ninterval = \"week\"\n", "trends[0].interval"),
            ("[[lifecycle]]\nname = \"l\"\n", "lifecycle[0].event"),
            ("[[lifecycle]]\nname = \"l\"\nevent = \"a\"\ninterval = \"fortnight\"\n", "lifecycle[0].interval"),
            ("[[lifecycle]]\nname = \"l\"\nevent = \"a\"\n[[lifecycle]]\nname = \"l\"\nevent = \"b\"\n", "lifecycle[1].name"),
        ] {
            try text.write(to: config, atomically: true, encoding: .utf8)
            let outcome = try FunnelExecutable.run(["compute", "--config", config.path], environment: ["DATABASE_URL": "postgresql://nobody@127.0.0.1:1/x"])
            #expect(outcome.status == 2, "\(text): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(text): \(outcome.stderr)")
        }
    }
}
