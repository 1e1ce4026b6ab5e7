import Foundation
import PostgresClient
import Testing
import TestSupport

/// Ordinary files of a real team through `funnel ingest` and the daily job (issue "Nothing lost
/// silently"): a file whose rows mostly fail is refused, never "loaded" with nothing in it; the
/// fix is named and accepted by the command that names it; a fixed file loads in full, once.
@Suite("Nothing lost silently")
struct NothingLostTests {
    typealias Workspace = FirstHourTests.Workspace

    static let runArguments = ["run", "--inbox", "inbox", "--reports", "reports", "--settle-seconds", "0", "--recheck-seconds", "0"]

    /// An installs file of `users` users whose times carry no zone (as MMP raw reports write them).
    static func zonelessInstalls(users: Int, app: String = "com.a.app", prefix: String = "z") -> String {
        var text = "event_id,app_id,user_id,installed_at,network\n"
        for user in 0..<users { text += "\(prefix)\(user),\(app),\(prefix)u\(user),2024-05-02 10:\(String(format: "%02d", user % 60)):00,meta\n" }
        return text
    }

    static func count(_ workspace: Workspace, _ sql: String) throws -> Int {
        let connection = try workspace.settings.connect()
        return try connection.query(sql).scalar(Int.self)
    }

    @Test("a file whose rows all lack a zone is refused with the fix, exit 1, not loaded; with --assume-tz the same bytes load")
    func zonelessFileRefused() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("exports/installs-1.csv", Self.zonelessInstalls(users: 40))
        let first = try workspace.funnel(["ingest", "exports"])
        #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("refused  40 of 40 rows would be rejected (100%), more than the 50% the reject share allows"),
                "\(first.stdout)")
        #expect(first.stdout.contains("All for one reason: installed_at: \"…\" has no time zone, e.g. line 2: "), "\(first.stdout)")
        #expect(first.stdout.contains("e.g. line 2: installed_at: \"2024-05-02 10:00:00\" has no time zone"), "\(first.stdout)")
        #expect(first.stdout.contains("pass --assume-tz ZONE, or set assume_tz in [ingest]"), "\(first.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs") == 0)
        #expect(try Self.count(workspace, "select count(*) from funnel.ingest_files where status = 'loaded'") == 0)

        let fixed = try workspace.funnel(["ingest", "exports", "--assume-tz", "UTC", "--json"])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(fixed.stdout.contains("\"rows_loaded\":40,\"rows_read\":40,\"status\":\"loaded\""), "\(fixed.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs") == 40)
        #expect(try Self.count(workspace, "select count(*) from funnel.ingest_files") == 1,
                "the refused entry went back on the queue instead of a second row")

        let again = try workspace.funnel(["ingest", "exports", "--assume-tz", "UTC"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("skipped") && again.stdout.contains("already loaded earlier"), "\(again.stdout)")
    }

    @Test("--max-reject-share: below it a file loads with its rejects; 1 never refuses; a bad share is a usage error")
    func rejectShare() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        var text = "event_id,app_id,user_id,installed_at,network\n"
        for user in 0..<6 { text += "g\(user),com.a.app,g\(user),2024-05-02T10:00:00Z,meta\n" }
        for user in 0..<4 { text += "b\(user),com.a.app,b\(user),2024-05-02 10:00:00,meta\n" }
        try workspace.write("exports/installs-1.csv", text)
        let strict = try workspace.funnel(["ingest", "exports", "--max-reject-share", "0.3"])
        #expect(strict.status == 1 && strict.stdout.contains("4 of 10 rows would be rejected (40%), more than the 30%"), "\(strict.stdout)")
        #expect(strict.stdout.contains("4 for one reason") == false && strict.stdout.contains("All for one reason"), "\(strict.stdout)")
        let loose = try workspace.funnel(["ingest", "exports"])
        #expect(loose.status == 0 && loose.stdout.contains("6 rows, 0 duplicates, 4 rejected"), "\(loose.stdout)")
        let usage = try workspace.funnel(["ingest", "exports", "--max-reject-share", "2"])
        #expect(usage.status == 2 && usage.stderr.contains("--max-reject-share must be from 0 to 1"), "\(usage.stderr)")

        try workspace.write("other/installs-2.csv", Self.zonelessInstalls(users: 3, prefix: "o"))
        let never = try workspace.funnel(["ingest", "other", "--max-reject-share", "1"])
        #expect(never.status == 0 && never.stdout.contains("0 rows, 0 duplicates, 3 rejected"), "\(never.stdout)")
    }

    @Test("a file loaded with rejects loads again with --retry: what it rejected loads, nothing is stored twice")
    func retryLoadsWhatWasRejected() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        var text = "event_id,app_id,user_id,installed_at,network\n"
        for user in 0..<7 { text += "g\(user),com.a.app,g\(user),2024-05-02T10:00:00Z,meta\n" }
        for user in 0..<3 { text += "b\(user),com.a.app,b\(user),2024-05-02 10:00:00,meta\n" }
        try workspace.write("exports/installs-1.csv", text)
        let first = try workspace.funnel(["ingest", "exports"])
        #expect(first.status == 0 && first.stdout.contains("7 rows, 0 duplicates, 3 rejected"), "\(first.stdout)")

        let skipped = try workspace.funnel(["ingest", "exports", "--assume-tz", "UTC"])
        #expect(skipped.status == 0)
        #expect(skipped.stdout.contains("already loaded earlier with 3 rows rejected; pass --retry to load it again"), "\(skipped.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs") == 7)

        let retried = try workspace.funnel(["ingest", "exports", "--assume-tz", "UTC", "--retry"])
        #expect(retried.status == 0 && retried.stdout.contains("3 rows, 7 duplicates, 0 rejected"), "\(retried.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs") == 10)
        #expect(try Self.count(workspace, "select count(distinct event_id) from funnel.raw_installs") == 10)
        #expect(try Self.count(workspace, "select count(*) from funnel.ingest_files where status = 'loaded'") == 2)
        #expect(try Self.count(workspace, "select count(*) from funnel.ingest_files where superseded_at is not null") == 1)

        let nothingLeft = try workspace.funnel(["ingest", "exports", "--assume-tz", "UTC", "--retry"])
        #expect(nothingLeft.status == 0 && nothingLeft.stdout.contains("skipped"), "\(nothingLeft.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.ingest_files") == 2)

        let compute = try workspace.funnel(["compute"])
        #expect(compute.status == 0, "\(compute.stderr)")
        #expect(try Self.count(workspace, "select count(*) from funnel.int_user_facts") == 10,
                "the retried file's rows reach compute")
    }

    @Test("a retried ad spend file keeps its place: a later file's restated spend still wins")
    func retriedSpendKeepsItsPlace() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("a/ad_spend-1.csv", """
            app_id,date,network,spend,campaign
            com.a.app,2024-05-01,meta,10.00,c1
            com.a.app,2024-05-02,meta,11.00,c1
            com.a.app,2024-05-03,meta,12.00,c1
            com.a.app,2024-05-04,meta,x13,c1

            """)
        try workspace.write("b/ad_spend-2.csv", """
            app_id,date,network,spend,campaign
            com.a.app,2024-05-04,meta,20.00,c1
            com.a.app,2024-05-01,meta,30.00,c1

            """)
        #expect(try workspace.funnel(["ingest", "a"]).status == 0)
        #expect(try workspace.funnel(["ingest", "b"]).status == 0)
        let retried = try workspace.funnel(["ingest", "a", "--retry"])
        #expect(retried.status == 0, "\(retried.stdout)")
        let connection = try workspace.settings.connect()
        let spend = try connection.query("select spend_date::text, spend::text from funnel.raw_ad_spend order by spend_date").rows.map {
            "\(try $0.decode(String.self, at: 0))=\(try $0.decode(String.self, at: 1))"
        }
        #expect(spend == ["2024-05-01=30.000000", "2024-05-02=11.000000", "2024-05-03=12.000000", "2024-05-04=20.000000"], "\(spend)")
    }

    @Test("[ingest] in funnel.toml: per app zones row by row, a file rule's kind and zone; --assume-tz wins; errors name file, line and key")
    func ingestSettings() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("funnel.toml", """
            [ingest]
            max_reject_share = 0.9

            [[ingest.apps]]
            app = "com.berlin.app"
            assume_tz = "Europe/Berlin"

            [[ingest.files]]
            pattern = "af-*.csv"
            kind = "installs"
            assume_tz = "+05:30"

            """)
        try workspace.write("exports/installs-1.csv", """
            event_id,app_id,user_id,installed_at,network
            e1,com.berlin.app,u1,2024-05-02 10:00:00,meta
            e2,com.other.app,u2,2024-05-02 10:00:00,meta

            """)
        try workspace.write("exports/af-2024-05-02.csv", """
            event_id,app_id,user_id,installed_at,network
            e3,com.berlin.app,u3,2024-05-02 10:00:00,meta

            """)
        let ingest = try workspace.funnel(["ingest", "exports"])
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        let connection = try workspace.settings.connect()
        let rows = try connection.query("select event_id, to_char(installed_at at time zone 'UTC', 'HH24:MI') from funnel.raw_installs order by 1").rows.map {
            "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))"
        }
        #expect(rows == ["e1 08:00", "e3 04:30"], "Berlin's summer time for its app; the rule's zone over the app's: \(rows)")
        #expect(ingest.stdout.contains("1 rejected"), "the app without a zone keeps the rejection: \(ingest.stdout)")

        try workspace.write("late/installs-3.csv", """
            event_id,app_id,user_id,installed_at,network
            e4,com.berlin.app,u4,2024-05-02 10:00:00,meta

            """)
        #expect(try workspace.funnel(["ingest", "late", "--assume-tz", "UTC"]).status == 0)
        #expect(try connection.query("select to_char(installed_at at time zone 'UTC', 'HH24:MI') from funnel.raw_installs where event_id = 'e4'")
            .scalar(String.self) == "10:00")

        try workspace.write("bad.toml", "[ingest]\nassume_tz = \"Mars/Base\"\nmax_reject_share = 2\n[[ingest.files]]\nkind = \"installs\"\n")
        let bad = try workspace.funnel(["ingest", "exports", "--config", "bad.toml"])
        #expect(bad.status == 2)
        let path = workspace.folder.appending(path: "bad.toml").standardizedFileURL.path
        for (line, key) in [(2, "ingest.assume_tz"), (3, "ingest.max_reject_share"), (4, "ingest.files[0].pattern")] {
            #expect(bad.stderr.contains("\(path):\(line): \(key): "), "\(key): \(bad.stderr)")
        }
    }

    @Test("funnel run: a zone-less file is refused and quarantined with its fix, the run exits 1; with the zone set, the next run loads it in full")
    func cronMorningZones() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("inbox/installs-ok.csv")
        try workspace.write("inbox/installs-mmp.csv", Self.zonelessInstalls(users: 30))
        let first = try workspace.funnel(Self.runArguments)
        #expect(first.status == 1, "a refused file makes the run fail: \(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("installs-mmp.csv  refused: 30 of 30 rows would be rejected"), "\(first.stdout)")
        let quarantine = workspace.folder.appending(path: "inbox/quarantine")
        let moved = try FileManager.default.subpathsOfDirectory(atPath: quarantine.path)
        let file = try #require(moved.first { $0.hasSuffix("/installs-mmp.csv") })
        let reason = try String(contentsOf: quarantine.appending(path: file + ".reason.txt"), encoding: .utf8)
        #expect(reason.contains("--assume-tz") && reason.contains("assume_tz in [ingest]"), "\(reason)")

        // Every option the reason names is one funnel run takes.
        let help = try workspace.funnel(["help", "run"])
        for option in ["--assume-tz", "--max-reject-share", "--max-expansion", "--max-decompressed", "--kind", "--retry"] {
            #expect(help.stdout.contains(option), "funnel run --help lacks \(option)")
        }

        try workspace.write("funnel.toml", "[ingest]\nassume_tz = \"UTC\"\n")
        try FileManager.default.moveItem(at: quarantine.appending(path: file), to: workspace.folder.appending(path: "inbox/installs-mmp.csv"))
        let second = try workspace.funnel(Self.runArguments)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("installs-mmp.csv  loaded 30 rows, 0 duplicates, 0 rejected"), "\(second.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs where app_id = 'com.a.app'") == 36)
        #expect(try Self.count(workspace, "select count(*) from funnel.ingest_files") == 2, "one queue row per content")
        let third = try workspace.funnel(Self.runArguments)
        #expect(third.status == 0 && third.stdout.contains("nothing new"), "\(third.stdout)")
    }

    @Test("the cron morning: zone-less installs, CHF without a rate, a refund, an install without a user id; run 1 exits 1 and says why, run 2 after the fix loads all of it once")
    func cronMorning() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("inbox/installs-mmp.csv", Self.zonelessInstalls(users: 30))
        try workspace.write("inbox/installs-1.csv", """
            event_id,app_id,user_id,installed_at,network,device_id
            i1,com.a.app,u1,2024-05-01T10:00:00Z,meta,
            i2,com.a.app,,2024-05-01T11:00:00Z,meta,IDFA-9

            """)
        try workspace.write("inbox/purchases-1.csv", """
            event_id,app_id,user_id,purchased_at,revenue,currency,device_id
            p1,com.a.app,u1,2024-05-01T12:00:00Z,10,USD,
            p2,com.a.app,u1,2024-05-02T12:00:00Z,100,CHF,
            p3,com.a.app,u1,2024-05-03T12:00:00Z,-4,USD,
            p4,com.a.app,u9,2024-05-02T09:00:00Z,5,USD,IDFA-9

            """)
        let first = try workspace.funnel(Self.runArguments)
        #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("installs-mmp.csv  refused: 30 of 30 rows would be rejected") && first.stdout.contains("--assume-tz"),
                "\(first.stdout)")
        let report1 = try Self.json(workspace, "reports/latest/report.json")
        let unconverted1 = (report1["scope"] as? [String: Any])?["unconverted"] as? [[String: Any]] ?? []
        #expect(unconverted1.first?["currency"] as? String == "CHF", "the CHF purchase is named, not counted as $0: \(unconverted1)")

        let quarantine = workspace.folder.appending(path: "inbox/quarantine")
        let moved = try #require(try FileManager.default.subpathsOfDirectory(atPath: quarantine.path).first { $0.hasSuffix("/installs-mmp.csv") })
        try FileManager.default.moveItem(at: quarantine.appending(path: moved), to: workspace.folder.appending(path: "inbox/installs-mmp.csv"))
        try workspace.write("funnel.toml", "[ingest]\nassume_tz = \"UTC\"\n")
        try workspace.write("inbox/currency_rates-1.csv", "date,currency,usd_per_unit\n2024-05-01,CHF,1.10\n")
        let second = try workspace.funnel(Self.runArguments)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("installs-mmp.csv  loaded 30 rows, 0 duplicates, 0 rejected"), "\(second.stdout)")
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs") == 32)
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_purchases") == 4)
        #expect(try Self.count(workspace, "select count(*) from funnel.raw_installs where user_id = 'u9' and device_id = 'IDFA-9'") == 1,
                "the device's install belongs to the user its later purchase names")
        let report2 = try Self.json(workspace, "reports/latest/report.json")
        let unconverted2 = (report2["scope"] as? [String: Any])?["unconverted"] as? [[String: Any]] ?? []
        #expect(unconverted2.isEmpty, "\(unconverted2)")
        let all = try #require((report2["networks"] as? [[String: Any]])?.first { $0["network"] as? String == "all" })
        // 10 + 100 CHF x 1.10 + 5 gross, 4 refunded, 121 net.
        #expect((all["gross_revenue"] as? NSNumber)?.doubleValue == 125, "\(all)")
        #expect((all["refunded"] as? NSNumber)?.doubleValue == 4, "\(all)")
        #expect((all["net_revenue"] as? NSNumber)?.doubleValue == 121, "\(all)")
        #expect((all["installs"] as? NSNumber)?.intValue == 32, "the device's install is one user with its purchase: \(all)")
        let third = try workspace.funnel(Self.runArguments)
        #expect(third.status == 0 && third.stdout.contains("nothing new"), "\(third.stdout)")
    }

    static func json(_ workspace: Workspace, _ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: workspace.folder.appending(path: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
