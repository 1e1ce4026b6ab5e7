import Foundation
import FunnelCore
import FunnelIngest
import PostgresClient
import Testing

@Suite("Loader: staging and merge")
struct LoaderTests {
    @Test("each kind lands in its raw table with typed values")
    func everyKindLands() throws {
        let db = try LoaderFixture()
        let files = [
            try db.file("installs.csv", "event_id,app_id,user_id,installed_at,network,platform,country,campaign,referrer_user_id,invite_id\n"
                + "i1,app,u1,2024-05-01T10:00:00+02:00,facebook,ios,DE,spring,u0,inv1\n"),
            try db.file("opens.csv", "event_id,app_id,user_id,opened_at,session_seconds\no1,app,u1,1714557600000,42\n"),
            try db.file("retention.csv", "event_id,app_id,user_id,day,reported_at\nr1,app,u1,3,2024-05-04T00:00:00Z\n"),
            try db.file("purchases.csv", "event_id,app_id,user_id,purchased_at,revenue,currency,product_id\np1,app,u1,2024-05-02T00:00:00Z,4.99,EUR,gems\n"),
            try db.file("invites.ndjson", #"{"event_id":"v1","app_id":"app","user_id":"u1","invite_id":"inv9","sent_at":"2024-05-02T01:00:00Z","channel":"sms"}"# + "\n"),
            try db.file("ad_spend.csv", "app_id,date,network,spend,impressions,clicks\napp,2024-05-01,facebook,100.25,1000,50\n"),
            try db.file("steps.csv", "event_id,app_id,user_id,occurred_at,step,screen\ns1,app,u1,2024-05-01T09:00:00Z,signup,welcome\n"),
            try db.file("ux.ndjson", #"{"event_id":"x1","app_id":"app","user_id":"u1","session_id":"s","occurred_at":"2024-05-01T09:00:00Z","screen":"signup","type":"keyboard","phase":"did_show","kb_h":291.5,"feedback_shown":true}"# + "\n"),
        ]
        let reports = try db.ingest(files)
        #expect(reports.map(\.status) == Array(repeating: .loaded, count: 8))
        #expect(reports.map(\.counts.rowsLoaded) == Array(repeating: 1, count: 8))
        #expect(try db.rows("select installed_at::text, network, platform, country, campaign, referrer_user_id, invite_id from raw_installs")
            == [["2024-05-01 08:00:00+00", "facebook", "ios", "DE", "spring", "u0", "inv1"]])
        #expect(try db.rows("select opened_at::text, session_seconds::text from raw_opens") == [["2024-05-01 10:00:00+00", "42"]])
        #expect(try db.rows("select day::text from raw_retention") == [["3"]])
        #expect(try db.rows("select revenue::text, currency, product_id from raw_purchases") == [["4.990000", "EUR", "gems"]])
        #expect(try db.rows("select invite_id, channel from raw_invites") == [["inv9", "sms"]])
        #expect(try db.rows("select spend_date::text, spend::text, campaign, country, currency, impressions::text, clicks::text from raw_ad_spend")
            == [["2024-05-01", "100.250000", "", "", "USD", "1000", "50"]])
        #expect(try db.rows("select step, screen from raw_steps") == [["signup", "welcome"]])
        #expect(try db.rows("select type, phase, kb_h::text, feedback_shown::text, kb_x::text from raw_ux")
            == [["keyboard", "did_show", "291.5", "true", "∅"]])
    }

    @Test("an event delivered twice in a file and again in another file is stored once, and counted as duplicates")
    func duplicatesWithinAndAcrossFiles() throws {
        let db = try LoaderFixture()
        let header = "event_id,app_id,user_id,opened_at\n"
        let first = try db.file("opens-1.csv", header + "o1,app,u1,2024-05-01T10:00:00Z\no2,app,u1,2024-05-01T11:00:00Z\n"
            + "o1,app,u1,2024-05-01T12:00:00Z\n")
        let second = try db.file("opens-2.csv", header + "o2,app,u1,2024-06-03T11:00:00Z\no3,app,u2,2024-05-02T10:00:00Z\n"
            + "o1,other-app,u1,2024-05-01T10:00:00Z\n")
        let reports = try db.ingest([first, second])
        #expect(reports.map(\.counts.rowsLoaded) == [2, 2])
        #expect(reports.map(\.counts.duplicates) == [1, 1])
        #expect(try db.rows("select app_id, event_id, opened_at::text from raw_opens order by 1, 2") == [
            ["app", "o1", "2024-05-01 10:00:00+00"], ["app", "o2", "2024-05-01 11:00:00+00"],
            ["app", "o3", "2024-05-02 10:00:00+00"], ["other-app", "o1", "2024-05-01 10:00:00+00"],
        ])
    }

    @Test("the same content ingested again is skipped and changes nothing")
    func sameFileTwice() throws {
        let db = try LoaderFixture()
        let text = "event_id,app_id,user_id,opened_at\no1,app,u1,2024-05-01T10:00:00Z\n"
        let path = try db.file("opens-a.csv", text)
        let copy = try db.file("opens-copy.csv", text)
        #expect(try db.ingest([path]).map(\.status) == [.loaded])
        let again = try db.ingest([path, copy])
        #expect(again.map(\.status) == [.skipped, .skipped])
        #expect(again.map(\.counts.rowsLoaded) == [0, 0])
        #expect(again.map(\.loadedBy) == [.anotherRun, .anotherRun])
        #expect(try db.count("select count(*) from raw_opens") == 1)
        #expect(try db.count("select count(*) from ingest_files") == 1)

        // Two copies of new content in one run: the first is loaded, the second names it.
        let fresh = "event_id,app_id,user_id,opened_at\no2,app,u2,2024-05-01T10:00:00Z\n"
        let pair = try db.ingest([try db.file("opens-b.csv", fresh), try db.file("opens-b-copy.csv", fresh)])
        #expect(pair.map(\.status) == [.loaded, .skipped])
        #expect(pair.map(\.loadedBy) == [.thisRun, .thisRun])
        #expect(pair.last?.message?.hasSuffix("opens-b.csv, loaded in this run") == true, "\(pair.last?.message ?? "")")
        #expect(pair.map(\.counts.rowsLoaded) == [1, 0])
    }

    @Test("ad spend restated within a file and by a later file keeps the latest row")
    func spendRestatement() throws {
        let db = try LoaderFixture()
        let header = "app_id,date,network,spend,campaign,country\n"
        let first = try db.file("ad_spend-1.csv", header + "app,2024-05-01,facebook,10,c1,US\napp,2024-05-01,facebook,11,c1,US\n"
            + "app,2024-05-01,unity,5,,\napp,2024-05-02,unity,7,,\n")
        let second = try db.file("ad_spend-2.csv", header + "app,2024-05-01,unity,6,,\n")
        let reports = try db.ingest([first, second])
        #expect(reports.map(\.counts.rowsLoaded) == [3, 1])
        #expect(reports.map(\.counts.duplicates) == [1, 0])
        #expect(try db.rows("select spend_date::text, network, campaign, country, spend::text from raw_ad_spend order by 1, 2") == [
            ["2024-05-01", "facebook", "c1", "US", "11.000000"], ["2024-05-01", "unity", "", "", "6.000000"],
            ["2024-05-02", "unity", "", "", "7.000000"],
        ])
    }

    /// Hour rows of a day are rows of their own beside the day's row without an hour, and each is
    /// restated by a later row with the same hour; hours outside 0-23 or not whole are rejected
    /// with the file, line and reason.
    @Test("ad_spend hours: kept per hour, restated per hour, bad hours rejected with file, line and reason")
    func spendHours() throws {
        let db = try LoaderFixture()
        let header = "app_id,date,network,spend,hour\n"
        let first = try db.file("ad_spend-h1.csv", header + "app,2024-05-01,unity,10,9\napp,2024-05-01,unity,20,20\n"
            + "app,2024-05-01,unity,30,\napp,2024-05-01,unity,1,24\napp,2024-05-01,unity,1,-1\napp,2024-05-01,unity,1,7.5\n")
        let second = try db.file("ad_spend-h2.ndjson", #"{"app_id":"app","date":"2024-05-01","network":"unity","spend":25,"hour":20}"# + "\n")
        let reports = try db.ingest([first, second])
        #expect(reports.map(\.counts.rowsLoaded) == [3, 1])
        #expect(reports.map(\.counts.rejected) == [3, 0])
        #expect(try db.rows("select coalesce(hour::text, '-'), spend::text from raw_ad_spend order by hour nulls first") == [
            ["-", "30.000000"], ["9", "10.000000"], ["20", "25.000000"],
        ])
        #expect(try db.rows("select f.path, r.line::text, r.reason from ingest_rejects r join ingest_files f using (file_id) order by r.line") == [
            [first, "5", #"hour: "24" is larger than 23"#], [first, "6", #"hour: "-1" is negative"#],
            [first, "7", #"hour: "7.5" is not a whole number"#],
        ])
    }

    @Test("rejected rows are kept with file, line, raw text and reason while the rows around them load")
    func rejectsAreKept() throws {
        let db = try LoaderFixture()
        let path = try db.file("installs-r.csv", "event_id,app_id,user_id,installed_at,network,country\n"
            + "i1,app,u1,2024-05-01T10:00:00Z,facebook,US\ni2,app,u2,2024-05-01T10:00:00Z,facebook,XX\n"
            + "i3,app,u3,2024-05-01T10:00:00Z,organic,\n")
        let report = try #require(try db.ingest([path]).first)
        #expect(report.status == .loaded)
        #expect(report.counts == FileLoadCounts(rowsRead: 3, rowsLoaded: 2, duplicates: 0, rejected: 1,
                                                lines: LineCounts(lines: 4, header: 1)))
        #expect(try db.rows("select f.path, r.line::text, r.kind, r.raw, r.reason from ingest_rejects r join ingest_files f using (file_id)")
            == [[path, "3", "installs", "i2,app,u2,2024-05-01T10:00:00Z,facebook,XX", #"country: "XX" is not an ISO 3166-1 alpha-2 code"#]])
        #expect(try db.rows("select event_id from raw_installs order by 1") == [["i1"], ["i3"]])
    }

    @Test("the loader marks nothing for compute: every loaded row carries its file's id, which is how compute finds it")
    func rowsCarryTheirFile() throws {
        let db = try LoaderFixture()
        let installs = try db.file("installs-1.csv", "event_id,app_id,user_id,installed_at,network\n"
            + "i1,app,u1,2024-05-01T23:30:00Z,facebook\ni2,app,u2,2024-05-03T10:00:00Z,organic\n")
        let lateOpens = try db.file("opens-late.csv", "event_id,app_id,user_id,opened_at\n"
            + "o1,app,u1,2024-05-20T10:00:00Z\no2,app,nobody,2024-05-20T10:00:00Z\n")
        _ = try db.ingest([installs])
        _ = try db.ingest([lateOpens])
        #expect(try db.count("select count(*) from dirty_cohort_days") == 0)
        #expect(try db.rows("""
            select f.path, count(*)::text from raw_installs r join ingest_files f using (file_id) group by 1
            union all
            select f.path, count(*)::text from raw_opens r join ingest_files f using (file_id) group by 1
            order by 1
            """) == [[installs, "2"], [lateOpens, "2"]].sorted { $0[0] < $1[0] })
    }

    @Test("a file refused whole stores nothing and is reported refused with its reason")
    func refusedFile() throws {
        let db = try LoaderFixture()
        let path = try db.file("installs-bad.csv", "event_id,app_id\ni1,app\n")
        let report = try #require(try db.ingest([path]).first)
        #expect(report.status == .refused)
        #expect(report.message?.contains("lacks the required installs columns") == true)
        #expect(try db.rows("select status from ingest_files") == [["refused"]])
    }
}
