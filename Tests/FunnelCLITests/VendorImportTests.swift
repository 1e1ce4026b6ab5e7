import Foundation
import PostgresClient
import Testing
import TestSupport

/// Vendor exports as the vendors ship them, through `funnel ingest` (docs/imports.md): sample
/// files written from each vendor's documented columns, checked in the raw tables by kind,
/// person, network and currency, with the rows the vendor marks and the rejects named.
@Suite("Vendor imports, through the binary")
struct VendorImportTests {
    typealias Workspace = FirstHourTests.Workspace

    /// The columns of an AppsFlyer raw-data report (installs, in-app events, uninstalls,
    /// reinstalls and retargeting reports share them), in AppsFlyer's order, with the optional
    /// Blocked Reason and Rejected Reason fields of the Protect360 and validation reports.
    static let appsFlyerColumns = [
        "Attributed Touch Type", "Attributed Touch Time", "Install Time", "Event Time", "Event Name", "Event Value",
        "Event Revenue", "Event Revenue Currency", "Event Revenue USD", "Event Source", "Is Receipt Validated", "Partner",
        "Media Source", "Channel", "Keywords", "Campaign", "Campaign ID", "Adset", "Adset ID", "Ad", "Ad ID", "Ad Type",
        "Site ID", "Region", "Country Code", "State", "City", "IP", "Language", "AppsFlyer ID", "Advertising ID", "IDFA",
        "Android ID", "Customer User ID", "IDFV", "Platform", "Device Type", "OS Version", "App Version", "SDK Version",
        "App ID", "App Name", "Bundle ID", "Is Retargeting", "Retargeting Conversion Type", "Is Primary Attribution",
        "User Agent", "Blocked Reason", "Rejected Reason",
    ]

    /// One CSV line of an AppsFlyer report: the given columns' values, the others empty.
    static func appsFlyerRow(_ values: [String: String]) -> String {
        appsFlyerColumns.map { column in
            let value = values[column] ?? ""
            return value.contains(",") || value.contains("\"") || value.contains("\n")
                ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
        }.joined(separator: ",")
    }

    static func install(_ device: String, user: String = "", at time: String, media: String, extra: [String: String] = [:]) -> [String: String] {
        ["Attributed Touch Type": "click", "Install Time": time, "Event Time": time, "Event Name": "install",
         "Media Source": media, "AppsFlyer ID": device, "Customer User ID": user, "App ID": "id1234567", "App Name": "Demo",
         "Platform": "ios", "Is Retargeting": "false", "Is Primary Attribution": "true"].merging(extra) { $1 }
    }

    static func inApp(_ device: String, user: String = "", name: String, at time: String, extra: [String: String] = [:]) -> [String: String] {
        ["Install Time": "2024-05-01 10:00:00", "Event Time": time, "Event Name": name, "Media Source": "googleadwords_int",
         "Campaign": "spring", "AppsFlyer ID": device, "Customer User ID": user, "App ID": "id1234567", "Platform": "ios",
         "Is Retargeting": "false"].merging(extra) { $1 }
    }

    /// An installs report: paid, organic (UK), blocked, a retargeting conversion, a bad time, a
    /// record whose User Agent holds a line break (lines 7-8), and a second paid network.
    static let installsReport: String = {
        let rows = [
            install("af-1", user: "u1", at: "2024-05-01 10:00:00", media: "googleadwords_int",
                    extra: ["Campaign": "spring", "Adset": "ads-1", "Ad": "cr-1", "Country Code": "US"]),
            install("af-2", at: "2024-05-01 11:00:00", media: "organic", extra: ["Country Code": "UK", "Platform": "android"]),
            install("af-9", at: "2024-05-01 11:30:00", media: "Facebook Ads", extra: ["Blocked Reason": "click_flood"]),
            install("af-1", user: "u1", at: "2024-05-06 09:00:00", media: "Facebook Ads",
                    extra: ["Is Retargeting": "true", "Retargeting Conversion Type": "re-engagement", "Campaign": "winback"]),
            install("af-5", at: "2024-13-01 10:00:00", media: "Facebook Ads"),
            install("af-3", user: "u3", at: "2024-05-01 12:00:00", media: "Facebook Ads",
                    extra: ["User Agent": "Mozilla/5.0\n(iPhone)", "Country Code": "de"]),
            install("af-4", user: "u4", at: "2024-05-02 08:00:00", media: "Facebook Ads", extra: ["Adset": "ads-2"]),
        ]
        return appsFlyerColumns.joined(separator: ",") + "\n" + rows.map(appsFlyerRow).joined(separator: "\n") + "\n"
    }()

    /// An in-app events report: a purchase, its refund, a device-only purchase, a custom event
    /// with its Event Value, an uninstall and a row AppsFlyer's validation rules rejected.
    static let inAppEventsReport: String = {
        let rows = [
            inApp("af-1", user: "u1", name: "af_purchase", at: "2024-05-02 12:00:00",
                  extra: ["Event Revenue": "4.99", "Event Revenue Currency": "EUR", "Event Value": #"{"af_revenue":"4.99","af_content_id":"gems"}"#]),
            inApp("af-1", user: "u1", name: "af_purchase", at: "2024-05-09 08:00:00",
                  extra: ["Event Revenue": "-4.99", "Event Revenue Currency": "EUR"]),
            inApp("af-2", name: "af_purchase", at: "2024-05-03 09:00:00", extra: ["Event Revenue": "9.99", "Event Revenue Currency": "USD"]),
            inApp("af-1", user: "u1", name: "af_level_achieved", at: "2024-05-02 13:00:00", extra: ["Event Value": #"{"af_level":"3"}"#]),
            inApp("af-2", name: "uninstall", at: "2024-05-04 10:00:00", extra: ["Media Source": "organic"]),
            inApp("af-7", name: "af_purchase", at: "2024-05-03 10:00:00",
                  extra: ["Event Revenue": "99", "Event Revenue Currency": "USD", "Rejected Reason": "validation_rule"]),
        ]
        return appsFlyerColumns.joined(separator: ",") + "\n" + rows.map(appsFlyerRow).joined(separator: "\n") + "\n"
    }()

    static func strings(_ connection: PostgresConnection, _ sql: String) throws -> [String] {
        try connection.query(sql).rows.map { try $0.decode(String.self, at: 0) }
    }

    @Test("AppsFlyer reports: installs per network with adset and creative, purchases and refunds per currency, events with properties, marked rows and rejects named")
    func appsFlyerReports() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let installs = try workspace.write("id1234567_installs_2024-05-01_2024-05-07.csv", Self.installsReport)
        let events = try workspace.write("id1234567_in-app-events_2024-05-01_2024-05-09.csv", Self.inAppEventsReport)

        // The installs report is told by its header; its times are read in UTC, AppsFlyer's default.
        let first = try workspace.funnel(["ingest", installs.path, "--show-rejects"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("5 rows, 0 duplicates, 1 rejected (9 lines: 1 header, 6 rows, 1 blank, 1 inside quoted fields)"), "\(first.stdout)")
        #expect(first.stdout.contains("read as AppsFlyer raw data (told by its header)"), "\(first.stdout)")
        #expect(first.stdout.contains("times without a zone read in UTC (AppsFlyer's default report time zone"), "\(first.stdout)")
        #expect(first.stdout.contains("1 row blocked by AppsFlyer (Blocked Reason), not loaded (line 4)"), "\(first.stdout)")
        #expect(first.stdout.contains("kept as event properties only, not stored on installs or purchases: Attributed Touch Type"), "\(first.stdout)")
        #expect(first.stdout.contains("\(installs.lastPathComponent):6: installed_at: \"2024-13-01 10:00:00\""), "\(first.stdout)")

        // The in-app events report named by --source, in the app's report zone given by --assume-tz.
        let second = try workspace.funnel(["ingest", events.path, "--source", "appsflyer", "--assume-tz", "Europe/Berlin", "--json"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let document = try FirstHourTests.json(second.stdout)
        let file = try #require((document["files"] as? [[String: Any]])?.first)
        #expect(file["rows_loaded"] as? Int == 5)
        #expect(file["rows_read"] as? Int == 5)
        #expect(file["lines"] as? Int == 7)
        let message = try #require(file["message"] as? String)
        #expect(message.contains("read as AppsFlyer raw data (--source or its file rule)"), "\(message)")
        #expect(message.contains("times without a zone read in Europe/Berlin (--assume-tz"), "\(message)")
        #expect(message.contains("1 row rejected by AppsFlyer (Rejected Reason), not loaded (line 7)"), "\(message)")

        let connection = try workspace.settings.connect()
        // Installs: one per device, the retargeting conversion and the blocked row not among them.
        #expect(try Self.strings(connection, "select network || ':' || count(*) from funnel.raw_installs group by network order by network")
            == ["Facebook Ads:2", "googleadwords_int:1", "organic:1"])
        #expect(try Self.strings(connection, """
            select concat_ws('|', user_id, device_id, to_char(installed_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'), network,
                             coalesce(campaign, '-'), coalesce(adset, '-'), coalesce(creative, '-'), coalesce(country, '-'), platform)
            from funnel.raw_installs order by device_id
            """) == [
                "u1|af-1|2024-05-01 10:00|googleadwords_int|spring|ads-1|cr-1|US|ios",
                "device:af-2|af-2|2024-05-01 11:00|organic|-|-|-|GB|android",
                "u3|af-3|2024-05-01 12:00|Facebook Ads|-|-|-|DE|ios",
                "u4|af-4|2024-05-02 08:00|Facebook Ads|-|ads-2|-|-|ios",
            ])
        // Purchases and the refund per currency, at Berlin times (12:00 +02:00 is 10:00 UTC).
        #expect(try Self.strings(connection, "select currency || ':' || sum(revenue)::text || ':' || count(*) from funnel.raw_purchases group by currency order by currency")
            == ["EUR:0.000000:2", "USD:9.990000:1"])
        #expect(try Self.strings(connection, "select to_char(purchased_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') from funnel.raw_purchases where revenue = 4.99")
            == ["2024-05-02 10:00"])
        // Events: the retargeting conversion kept apart, the custom event and the uninstall, with properties.
        #expect(try Self.strings(connection, "select event || ':' || user_id from funnel.raw_events order by event")
            == ["af_level_achieved:u1", "re-engagement:u1", "uninstall:device:af-2"])
        #expect(try Self.strings(connection, "select properties->>'Event Value' from funnel.raw_events where event = 'af_level_achieved'")
            == [#"{"af_level":"3"}"#])
        #expect(try Self.strings(connection, "select concat_ws('|', properties->>'Media Source', properties->>'Campaign', properties->>'Is Retargeting') from funnel.raw_events where event = 're-engagement'")
            == ["Facebook Ads|winback|true"])
        // u1's device is tied to u1; the device-only af-2 stays a person of its own.
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id")
            == ["af-1>u1", "af-3>u3", "af-4>u4"])

        // The same export again is skipped by its content; nothing is stored twice.
        let again = try workspace.funnel(["ingest", installs.path])
        #expect(again.status == 0)
        #expect(again.stdout.contains("skipped"), "\(again.stdout)")
        #expect(try connection.query("select count(*) from funnel.raw_installs").scalar(Int.self) == 4)
    }

    @Test("an AppsFlyer file without its required columns is refused, naming them; --source with --kind is a usage error")
    func appsFlyerRefusals() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let bad = try workspace.write("af.csv", "Event Time,Event Name,Media Source\n2024-05-01 10:00:00,install,organic\n")
        let refused = try workspace.funnel(["ingest", bad.path, "--source", "appsflyer"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("not readable as AppsFlyer raw data: the header lacks AppsFlyer's columns AppsFlyer ID, App ID"),
                "\(refused.stdout)")
        let usage = try workspace.funnel(["ingest", bad.path, "--source", "appsflyer", "--kind", "installs"])
        #expect(usage.status != 0 && usage.status != 1)
        let unknown = try workspace.funnel(["ingest", bad.path, "--source", "nobody"])
        #expect(unknown.stderr.contains("--source nobody: not a vendor funnel reads; use one of appsflyer, adjust, segment, rudderstack, posthog, amplitude, firebase"), "\(unknown.stderr)")
    }

    @Test("ad_spend by adset and creative: two ad sets of one campaign are two rows, a later file restates one, a row without them is its own")
    func spendByAdset() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let first = try workspace.write("ad_spend-1.csv", "app_id,date,network,spend,campaign,adset,creative\n"
            + "app,2024-05-01,meta,10,spring,young,video\napp,2024-05-01,meta,20,spring,old,video\napp,2024-05-01,meta,5,spring,,\n")
        let second = try workspace.write("ad_spend-2.csv", "app_id,date,network,spend,campaign,adset,creative\napp,2024-05-01,meta,12,spring,young,video\n")
        #expect(try workspace.funnel(["ingest", first.path, "-q"]).status == 0)
        #expect(try workspace.funnel(["ingest", second.path, "-q"]).status == 0)
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, "select concat_ws('|', adset, creative, spend::text) from funnel.raw_ad_spend order by adset, spend")
            == ["||5.000000", "old|video|20.000000", "young|video|12.000000"])
    }

    /// An Adjust CSV export (columns named by placeholders, braces kept as Adjust's CSV
    /// definition writes them; user_id a callback parameter): installs, a session, purchases in
    /// whole units and in cents, a refund, an event, a reattribution, a sandbox row, a rejected
    /// install, a click and a row whose created_at is no Unix time (line 13).
    static let adjustExport = """
        {activity_kind},{created_at},{installed_at},{app_id},{adid},{idfa},{network_name},{campaign_name},{adgroup_name},{creative_name},{country},{os_name},{event_name},{revenue_float},{revenue},{currency},{environment},{time_spent},{rejection_reason},{city},user_id
        install,1714557600,1714557600,com.example.app,adj-1,IDFA-1,Facebook Installs,spring,adg-1,cr-1,us,ios,,,,,production,,,Berlin,u1
        install,1714561200,1714561200,com.example.app,adj-2,,Organic,,,,de,android,,,,,production,,,,
        session,1714644000,1714557600,com.example.app,adj-1,IDFA-1,Facebook Installs,spring,adg-1,cr-1,us,ios,,,,,production,95,,,u1
        event,1714647600,1714557600,com.example.app,adj-1,IDFA-1,Facebook Installs,spring,adg-1,cr-1,us,ios,purchase,4.99,,EUR,production,,,,u1
        event,1714651200,1714561200,com.example.app,adj-2,,Organic,,,,de,android,purchase,,999,USD,production,,,,
        event,1715241600,1714557600,com.example.app,adj-1,IDFA-1,Facebook Installs,spring,adg-1,cr-1,us,ios,refund,-4.99,,EUR,production,,,,u1
        event,1714654800,1714557600,com.example.app,adj-1,IDFA-1,Facebook Installs,spring,adg-1,cr-1,us,ios,level_up,,,,production,,,Berlin,u1
        install,1714557600,1714557600,com.example.app,adj-8,,Facebook Installs,,,,us,ios,,,,,sandbox,,,,
        rejected_install,1714557600,,com.example.app,adj-9,,Facebook Installs,,,,us,ios,,,,,production,,click_injection,,
        click,1714557000,,com.example.app,,,Facebook Installs,spring,,,us,ios,,,,,production,,,,
        reattribution,1715000000,1714557600,com.example.app,adj-1,IDFA-1,Google Ads ACI,winback,,,us,ios,,,,,production,,,,u1
        install,yesterday,,com.example.app,adj-7,,Facebook Installs,,,,us,ios,,,,,production,,,,

        """

    @Test("Adjust export: Unix-second times, installs per network with adgroup and creative, sessions, revenue in units and cents per currency, marked rows and rejects named")
    func adjustExport() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let file = try workspace.write("adjust_raw_2024-05-01.csv", Self.adjustExport)
        let outcome = try workspace.funnel(["ingest", file.path, "--show-rejects"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("8 rows, 0 duplicates, 1 rejected (13 lines: 1 header, 9 rows, 3 blank)"), "\(out)")
        #expect(out.contains("read as Adjust raw data (told by its header)"), "\(out)")
        #expect(!out.contains("times without a zone"), "Adjust's times are Unix seconds: \(out)")
        #expect(out.contains("1 row test rows (environment sandbox), not loaded (line 9)"), "\(out)")
        #expect(out.contains("1 row rejected by Adjust's fraud prevention (rejected_install, rejected_reattribution, rejection_reason), not loaded (line 10)"), "\(out)")
        #expect(out.contains("1 row clicks and impressions (no person's activity), not loaded (line 11)"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):13: installed_at: \"yesterday\""), "\(out)")
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, """
            select concat_ws('|', user_id, to_char(installed_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'), network, coalesce(campaign, '-'),
                             coalesce(adset, '-'), coalesce(creative, '-'), country, platform)
            from funnel.raw_installs order by device_id
            """) == ["u1|2024-05-01 10:00|Facebook Installs|spring|adg-1|cr-1|US|ios", "device:adj-2|2024-05-01 11:00|organic|-|-|-|DE|android"])
        #expect(try Self.strings(connection, "select user_id || ':' || to_char(opened_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ':' || session_seconds from funnel.raw_opens")
            == ["u1:2024-05-02 10:00:95"])
        #expect(try Self.strings(connection, "select currency || ':' || sum(revenue)::text || ':' || count(*) from funnel.raw_purchases group by currency order by currency")
            == ["EUR:0.000000:2", "USD:9.990000:1"])
        #expect(try Self.strings(connection, "select event || ':' || coalesce(properties->>'city', '-') || ':' || coalesce(properties->>'network_name', '-') from funnel.raw_events order by event")
            == ["level_up:Berlin:Facebook Installs", "reattribution:-:Google Ads ACI"])
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id") == ["adj-1>u1"])
    }

    /// Segment calls as a warehouse export writes them, one per line (line 5 blank, line 7 the
    /// same messageId again, line 10 a track without an event, line 11 a time without a zone).
    static let segmentCalls = [
        #"{"type":"identify","messageId":"s-1","anonymousId":"anon-1","userId":"u1","timestamp":"2024-05-01T10:00:00.000Z","traits":{"plan":"pro"},"context":{"app":{"namespace":"com.example.app","name":"Example"}}}"#,
        #"{"type":"track","event":"Install Attributed","messageId":"s-2","anonymousId":"anon-1","timestamp":"2024-05-01T09:59:00.000Z","properties":{"provider":"AppsFlyer","campaign":{"source":"Facebook Ads","name":"spring","ad_group":"ads-1","ad_creative":"video-3"}},"context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"track","event":"Application Opened","messageId":"s-3","userId":"u1","anonymousId":"anon-1","timestamp":"2024-05-01T10:01:00Z","context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"screen","name":"Home","messageId":"s-4","userId":"u1","timestamp":"2024-05-01T10:02:00Z","properties":{"from":"launch"},"context":{"app":{"namespace":"com.example.app"}}}"#,
        "",
        #"{"type":"track","event":"Order Completed","messageId":"s-5","userId":"u1","timestamp":"2024-05-02T12:00:00Z","properties":{"revenue":4.99,"currency":"EUR","product_id":"gems"},"context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"track","event":"Order Completed","messageId":"s-5","userId":"u1","timestamp":"2024-05-02T12:00:00Z","properties":{"revenue":4.99,"currency":"EUR","product_id":"gems"},"context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"track","event":"Signed Up","messageId":"s-6","anonymousId":"anon-2","timestamp":"2024-05-02T13:00:00Z","properties":{"method":"email","referrer":"friend \"Bob\""},"context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"alias","messageId":"s-7","previousId":"anon-2","userId":"u2","timestamp":"2024-05-02T13:01:00Z","context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"track","messageId":"s-8","userId":"u2","timestamp":"2024-05-02T14:00:00Z","context":{"app":{"namespace":"com.example.app"}}}"#,
        #"{"type":"track","event":"Played","messageId":"s-9","userId":"u2","timestamp":"2024-05-02T14:00:00","context":{"app":{"namespace":"com.example.app"}}}"#,
    ].joined(separator: "\n") + "\n"

    @Test("Segment calls: messageId deduplicates, identify and alias merge a person, Install Attributed is an install, revenue a purchase, rejects named by line")
    func segmentCalls() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let file = try workspace.write("segment-export.ndjson", Self.segmentCalls)
        let outcome = try workspace.funnel(["ingest", file.path, "--show-rejects"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("7 rows, 1 duplicates, 2 rejected (11 lines: 0 header, 10 rows, 1 blank)"), "\(out)")
        #expect(out.contains("read as Segment calls (told by its records' shape)"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):10: event: missing (a track call names its event)"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):11: occurred_at:"), "\(out)")
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, "select concat_ws('|', user_id, device_id, network, campaign, adset, creative) from funnel.raw_installs")
            == ["u1|anon-1|Facebook Ads|spring|ads-1|video-3"])
        #expect(try Self.strings(connection, "select user_id from funnel.raw_opens") == ["u1"])
        #expect(try Self.strings(connection, "select concat_ws('|', user_id, revenue::text, currency, product_id) from funnel.raw_purchases")
            == ["u1|4.990000|EUR|gems"])
        #expect(try Self.strings(connection, "select event || ':' || user_id || ':' || coalesce(properties::text, '-') from funnel.raw_events order by event")
            == [#"Signed Up:u2:{"method": "email", "referrer": "friend \"Bob\""}"#, "alias:u2:-", #"identify:u1:{"plan": "pro"}"#,
                #"screen:u1:{"from": "launch", "name": "Home"}"#])
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id") == ["anon-1>u1", "anon-2>u2"])

        // RudderStack follows the same spec.
        let rudder = try workspace.write("rudder.jsonl", #"{"type":"track","event":"Level Up","messageId":"r-1","userId":"u3","timestamp":"2024-05-03T10:00:00Z","context":{"app":{"namespace":"com.example.app"}}}"# + "\n")
        let second = try workspace.funnel(["ingest", rudder.path, "--source", "rudderstack"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("read as RudderStack events (the Segment spec) (--source or its file rule)"), "\(second.stdout)")
        #expect(try Self.strings(connection, "select user_id from funnel.raw_events where event = 'Level Up'") == ["u3"])
    }

    /// A PostHog events export: an anonymous pageview, the $identify that ties it, a purchase
    /// whose time has no zone (UTC), a $create_alias, an app open and an event without a uuid.
    static let postHogEvents = [
        #"{"uuid":"0190-a","event":"$pageview","distinct_id":"anon-9","timestamp":"2024-05-01T10:00:00.000000Z","team_id":7,"properties":{"$device_id":"anon-9","$host":"app.example.com","$pathname":"/pricing"}}"#,
        #"{"uuid":"0190-b","event":"$identify","distinct_id":"u9","timestamp":"2024-05-01T10:05:00Z","team_id":7,"properties":{"$anon_distinct_id":"anon-9","$device_id":"anon-9","$host":"app.example.com"}}"#,
        #"{"uuid":"0190-c","event":"purchase","distinct_id":"u9","timestamp":"2024-05-01 11:00:00","properties":{"revenue":19.99,"currency":"USD","$device_id":"anon-9","$host":"app.example.com"}}"#,
        #"{"uuid":"0190-d","event":"$create_alias","distinct_id":"u9","timestamp":"2024-05-01T12:00:00Z","properties":{"alias":"legacy-9","$host":"app.example.com"}}"#,
        #"{"uuid":"0190-e","event":"Application Opened","distinct_id":"u9","timestamp":"2024-05-02T08:00:00Z","properties":{"$app_namespace":"com.example.app"}}"#,
        #"{"event":"clicked","distinct_id":"u9","timestamp":"2024-05-02T09:00:00Z","properties":{"$host":"app.example.com"}}"#,
    ].joined(separator: "\n") + "\n"

    @Test("PostHog events: uuid the event id, $identify and $create_alias merge the person, revenue a purchase, zone-less times UTC, the reject named")
    func postHogEvents() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let file = try workspace.write("posthog-export.ndjson", Self.postHogEvents)
        let outcome = try workspace.funnel(["ingest", file.path, "--show-rejects"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("5 rows, 0 duplicates, 1 rejected (6 lines: 0 header, 6 rows)"), "\(out)")
        #expect(out.contains("read as PostHog events (told by its records' shape); times without a zone read in UTC"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):6: missing required field event_id"), "\(out)")
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, "select event || ':' || user_id || ':' || app_id from funnel.raw_events order by event")
            == ["$create_alias:u9:app.example.com", "$identify:u9:app.example.com", "$pageview:u9:app.example.com"])
        #expect(try Self.strings(connection, "select properties->>'$pathname' from funnel.raw_events where event = '$pageview'") == ["/pricing"])
        #expect(try Self.strings(connection, "select concat_ws('|', user_id, revenue::text, currency, to_char(purchased_at at time zone 'UTC', 'HH24:MI')) from funnel.raw_purchases")
            == ["u9|19.990000|USD|11:00"])
        #expect(try Self.strings(connection, "select app_id || ':' || user_id from funnel.raw_opens") == ["com.example.app:u9"])
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id") == ["anon-9>u9", "legacy-9>u9"])

        // A project that sends revenue in minor units: divided by each currency's (JPY has none).
        let cents = try workspace.write("posthog-cents.ndjson", [
            #"{"uuid":"0191-a","event":"purchase","distinct_id":"u9","timestamp":"2024-05-03T10:00:00Z","properties":{"revenue":1999,"currency":"USD","$host":"app.example.com"}}"#,
            #"{"uuid":"0191-b","event":"purchase","distinct_id":"u9","timestamp":"2024-05-03T11:00:00Z","properties":{"revenue":500,"currency":"JPY","$host":"app.example.com"}}"#,
        ].joined(separator: "\n") + "\n")
        #expect(try workspace.funnel(["ingest", cents.path, "--revenue-minor-units", "-q"]).status == 0)
        #expect(try Self.strings(connection, "select currency || ':' || revenue::text from funnel.raw_purchases where event_id like '0191-%' order by event_id")
            == ["USD:19.990000", "JPY:500.000000"])
    }

    /// Firebase's BigQuery export rows as NDJSON: a paid first_open, a session_start that ties
    /// the pseudo id to a user id, an event with int, string and double params, an
    /// in_app_purchase in EUR, a purchase with event_value_in_usd only, an organic first_open
    /// (country a name), the event of line 3 exported again, a row without event_timestamp and
    /// one whose timestamp is not microseconds.
    static let firebaseRows: String = {
        func row(_ name: String, _ stamp: String, pseudo: String, user: String?, params: String = "[]", extra: String = "") -> String {
            let id = user.map { "\"\($0)\"" } ?? "null"
            return #"{"event_date":"20240501","event_timestamp":"\#(stamp)","event_name":"\#(name)","event_params":\#(params),"user_pseudo_id":"\#(pseudo)","user_id":\#(id),"user_properties":[],"device":{"category":"mobile","operating_system":"iOS"},"app_info":{"id":"com.example.app","version":"1.2"},"platform":"IOS"\#(extra)}"#
        }
        let levelUp = row("level_up", "1714564800000000", pseudo: "p-1", user: "u1",
                          params: #"[{"key":"level","value":{"string_value":null,"int_value":"3","float_value":null,"double_value":null}},{"key":"character","value":{"string_value":"wizard"}},{"key":"score","value":{"double_value":12.5}}]"#)
        return [
            row("first_open", "1714557600000000", pseudo: "p-1", user: nil,
                extra: #","geo":{"country":"United States","city":"Austin"},"traffic_source":{"name":"spring","medium":"cpc","source":"google"}"#),
            row("session_start", "1714561200000000", pseudo: "p-1", user: "u1",
                params: #"[{"key":"ga_session_id","value":{"int_value":"1714561200"}}]"#),
            levelUp,
            row("in_app_purchase", "1714568400000000", pseudo: "p-1", user: "u1",
                params: #"[{"key":"value","value":{"double_value":4.99}},{"key":"currency","value":{"string_value":"EUR"}},{"key":"product_id","value":{"string_value":"gems"}}]"#),
            row("purchase", "1714572000000000", pseudo: "p-2", user: nil, extra: #","event_value_in_usd":9.99"#),
            row("first_open", "1714575600000000", pseudo: "p-2", user: nil,
                extra: #","geo":{"country":"Germany"},"traffic_source":{"name":"(direct)","medium":"(none)","source":"(direct)"}"#)
                .replacingOccurrences(of: #""platform":"IOS""#, with: #""platform":"ANDROID""#),
            levelUp,
            #"{"event_date":"20240501","event_name":"tutorial_begin","user_pseudo_id":"p-3","app_info":{"id":"com.example.app"}}"#,
            row("tutorial_begin", "yesterday", pseudo: "p-3", user: nil),
        ].joined(separator: "\n") + "\n"
    }()

    @Test("Firebase BigQuery rows: a derived event id, microsecond times, first_open an install with its traffic source and country, params as properties, purchases per currency, the pseudo id tied to the user")
    func firebaseRows() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let file = try workspace.write("analytics_123456-2024-05-01.ndjson", Self.firebaseRows)
        let outcome = try workspace.funnel(["ingest", file.path, "--show-rejects"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("6 rows, 1 duplicates, 2 rejected (9 lines: 0 header, 9 rows)"), "\(out)")
        #expect(out.contains("read as Firebase BigQuery export rows (told by its records' shape)"), "\(out)")
        #expect(!out.contains("times without a zone"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):8: event_timestamp: missing"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):9: occurred_at:"), "\(out)")
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, """
            select concat_ws('|', user_id, to_char(installed_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'), network, coalesce(campaign, '-'), country, platform, app_id)
            from funnel.raw_installs order by user_id
            """) == ["device:p-2|2024-05-01 15:00|organic|-|DE|android|com.example.app", "u1|2024-05-01 10:00|google|spring|US|ios|com.example.app"])
        #expect(try Self.strings(connection, "select user_id || ':' || to_char(opened_at at time zone 'UTC', 'HH24:MI') from funnel.raw_opens") == ["u1:11:00"])
        #expect(try Self.strings(connection, "select currency || ':' || sum(revenue)::text || ':' || string_agg(coalesce(product_id, '-'), ',') || ':' || string_agg(user_id, ',') from funnel.raw_purchases group by currency order by currency")
            == ["EUR:4.990000:gems:u1", "USD:9.990000:-:device:p-2"])
        #expect(try Self.strings(connection, "select concat_ws('|', event, user_id, jsonb_typeof(properties->'level'), properties->>'level', properties->>'character', properties->>'score') from funnel.raw_events")
            == ["level_up|u1|number|3|wizard|12.5"])
        #expect(try Self.strings(connection, "select count(*)::text || ':' || count(distinct event_id)::text || ':' || bool_and(event_id like 'fb-%')::text from (select event_id from funnel.raw_installs union all select event_id from funnel.raw_opens union all select event_id from funnel.raw_purchases union all select event_id from funnel.raw_events) ids")
            == ["6:6:true"])
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id") == ["p-1>u1"])

        // BigQuery's table name, events_YYYYMMDD, names funnel's events kind: --source says it is Firebase's.
        let table = try workspace.write("events_20240502.json", #"{"event_date":"20240502","event_timestamp":"1714651200000000","event_name":"tutorial_begin","event_params":[],"user_pseudo_id":"p-4","user_id":null,"app_info":{"id":"com.example.app"},"platform":"ANDROID"}"# + "\n")
        let second = try workspace.funnel(["ingest", table.path, "--source", "firebase"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(try Self.strings(connection, "select user_id || ':' || to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') from funnel.raw_events where event = 'tutorial_begin'")
            == ["device:p-4:2024-05-02 12:00"])
    }

    /// One hourly file of an Amplitude export (`<project>_<date>_<hour>#<n>.json.gz`): a
    /// session_start before login, two devices of one user, a revenue event in EUR, one without a
    /// currency (USD), a blank line, the event of line 2 again, a row without event_type and a
    /// time that is no date.
    static let amplitudeEvents = [
        #"{"uuid":"a-1","event_type":"session_start","event_time":"2024-05-01 10:00:00.123000","user_id":null,"device_id":"d-1","amplitude_id":901,"app":123456,"event_properties":{},"user_properties":{},"revenue":null,"$insert_id":"i-1","country":"United States","platform":"iOS","os_name":"ios"}"#,
        #"{"uuid":"a-2","event_type":"Sign Up","event_time":"2024-05-01 10:01:00.000000","user_id":"u1","device_id":"d-1","amplitude_id":901,"app":123456,"event_properties":{"method":"email"},"user_properties":{"plan":"free"},"revenue":null,"country":"United States","platform":"iOS","os_name":"ios"}"#,
        #"{"uuid":"a-3","event_type":"Level Up","event_time":"2024-05-02 08:00:00.000000","user_id":"u1","device_id":"d-2","amplitude_id":901,"app":123456,"event_properties":{"level":4},"revenue":null,"platform":"Android","os_name":"android"}"#,
        #"{"uuid":"a-4","event_type":"[Amplitude] Revenue","event_time":"2024-05-02 09:00:00.000000","user_id":"u1","device_id":"d-2","amplitude_id":901,"app":123456,"event_properties":{"$productId":"gems","$price":4.99,"$quantity":1,"$currency":"EUR"},"revenue":4.99}"#,
        #"{"uuid":"a-5","event_type":"Purchase","event_time":"2024-05-02 10:00:00.000000","user_id":null,"device_id":"d-3","amplitude_id":902,"app":123456,"event_properties":{},"revenue":9.99}"#,
        "",
        #"{"uuid":"a-2","event_type":"Sign Up","event_time":"2024-05-01 10:01:00.000000","user_id":"u1","device_id":"d-1","amplitude_id":901,"app":123456,"event_properties":{"method":"email"},"user_properties":{"plan":"free"},"revenue":null,"country":"United States","platform":"iOS","os_name":"ios"}"#,
        #"{"uuid":"a-6","event_time":"2024-05-02 11:00:00.000000","user_id":"u1","device_id":"d-2","amplitude_id":901,"app":123456}"#,
        #"{"uuid":"a-7","event_type":"Level Up","event_time":"2024-05-32 11:00:00.000000","user_id":"u1","device_id":"d-2","amplitude_id":901,"app":123456}"#,
    ].joined(separator: "\n") + "\n"

    @Test("Amplitude export file (gzipped NDJSON): uuid the event id, zone-less UTC times, two devices of one user count once, revenue per currency, rejects named by line")
    func amplitudeEvents() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let plain = try workspace.write("123456_2024-05-01_10#0.json", Self.amplitudeEvents)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -n \"$0\"", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let file = plain.appendingPathExtension("gz")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let outcome = try workspace.funnel(["ingest", file.path, "--show-rejects"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("5 rows, 1 duplicates, 2 rejected (9 lines: 0 header, 8 rows, 1 blank)"), "\(out)")
        #expect(out.contains("read as Amplitude export (told by its records' shape); times without a zone read in UTC (Amplitude's export writes UTC"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):8: event_type: missing"), "\(out)")
        #expect(out.contains("\(file.lastPathComponent):9: occurred_at:"), "\(out)")
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, "select app_id || ':' || user_id || ':' || to_char(opened_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') from funnel.raw_opens")
            == ["amplitude-123456:u1:2024-05-01 10:00:00.123"])
        #expect(try Self.strings(connection, "select event || ':' || user_id || ':' || properties::text from funnel.raw_events order by event")
            == [#"Level Up:u1:{"level": 4}"#, #"Sign Up:u1:{"method": "email"}"#])
        #expect(try Self.strings(connection, "select currency || ':' || sum(revenue)::text || ':' || string_agg(user_id || '/' || coalesce(product_id, '-'), ',') from funnel.raw_purchases group by currency order by currency")
            == ["EUR:4.990000:u1/gems", "USD:9.990000:device:d-3/-"])
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id") == ["d-1>u1", "d-2>u1"])
        #expect(try Self.strings(connection, "select count(distinct user_id)::text from (select user_id from funnel.raw_opens union all select user_id from funnel.raw_events union all select user_id from funnel.raw_purchases) people")
            == ["2"])
    }

    @Test("Amplitude Export API zip: its gzipped hourly members read in order as one export, told by their shape, each member's last line kept apart")
    func amplitudeZip() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(at: workspace.folder.appendingPathComponent("123456"), withIntermediateDirectories: true)
        _ = try workspace.write("123456/123456_2024-05-01_10#0.json", Self.amplitudeEvents)
        // The second hour's file ends without a line break.
        _ = try workspace.write("123456/123456_2024-05-01_11#0.json", [
            #"{"uuid":"a-8","event_type":"Level Up","event_time":"2024-05-01 11:05:00.000000","user_id":"u2","device_id":"d-8","amplitude_id":903,"app":123456,"event_properties":{"level":1}}"#,
            #"{"uuid":"a-9","event_type":"session_start","event_time":"2024-05-01 11:00:00.000000","user_id":"u2","device_id":"d-8","amplitude_id":903,"app":123456}"#,
        ].joined(separator: "\n"))
        let pack = Process()
        pack.executableURL = URL(fileURLWithPath: "/bin/sh")
        pack.arguments = ["-c", "gzip -n 123456/*.json && zip -q -r export.zip 123456 && rm -r 123456"]
        pack.currentDirectoryURL = workspace.folder
        try pack.run()
        pack.waitUntilExit()
        #expect(pack.terminationStatus == 0)
        let archive = workspace.folder.appendingPathComponent("export.zip")
        let outcome = try workspace.funnel(["ingest", archive.path, "--show-rejects"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let out = outcome.stdout
        #expect(out.contains("7 rows, 1 duplicates, 2 rejected (11 lines: 0 header, 10 rows, 1 blank)"), "\(out)")
        #expect(out.contains("read as Amplitude export (told by its records' shape)"), "\(out)")
        #expect(out.contains("export.zip:8: event_type: missing"), "\(out)")
        let connection = try workspace.settings.connect()
        #expect(try Self.strings(connection, "select user_id || ':' || to_char(opened_at at time zone 'UTC', 'HH24:MI') from funnel.raw_opens order by opened_at")
            == ["u1:10:00", "u2:11:00"])
        #expect(try Self.strings(connection, "select event || ':' || user_id from funnel.raw_events order by event_id") == ["Sign Up:u1", "Level Up:u1", "Level Up:u2"])
        #expect(try Self.strings(connection, "select device_id || '>' || user_id from funnel.identity_links order by device_id") == ["d-1>u1", "d-2>u1", "d-8>u2"])

        // A member stored without compression and not gzipped reads as well (zip -0).
        _ = try workspace.write("later/123456_2024-05-03_09#0.json",
                                #"{"uuid":"a-10","event_type":"Level Up","event_time":"2024-05-03 09:00:00.000000","user_id":"u3","device_id":"d-10","amplitude_id":904,"app":123456}"# + "\n")
        let store = Process()
        store.executableURL = URL(fileURLWithPath: "/bin/sh")
        store.arguments = ["-c", "zip -q -0 -r stored.zip later"]
        store.currentDirectoryURL = workspace.folder
        try store.run()
        store.waitUntilExit()
        let stored = try workspace.funnel(["ingest", workspace.folder.appendingPathComponent("stored.zip").path, "--source", "amplitude"])
        #expect(stored.stdout.contains("1 rows, 0 duplicates, 0 rejected"), "\(stored.stdout)\(stored.stderr)")
        #expect(try Self.strings(connection, "select user_id from funnel.raw_events where event_id = 'a-10'") == ["u3"])

        // A truncated archive is refused whole, naming the zip.
        let cut = Process()
        cut.executableURL = URL(fileURLWithPath: "/bin/sh")
        cut.arguments = ["-c", "head -c 300 export.zip > cut.zip"]
        cut.currentDirectoryURL = workspace.folder
        try cut.run()
        cut.waitUntilExit()
        let truncated = try workspace.funnel(["ingest", workspace.folder.appendingPathComponent("cut.zip").path, "--source", "amplitude"])
        #expect(truncated.stdout.contains("cut.zip") && truncated.stdout.contains("refused  not a readable zip archive (no end of central directory record)"),
                "\(truncated.stdout)\(truncated.stderr)")

        // A zip whose members are no Amplitude export is not opened: refused as any file is.
        let other = try workspace.write("notes.txt", "hello\n")
        let wrap = Process()
        wrap.executableURL = URL(fileURLWithPath: "/bin/sh")
        wrap.arguments = ["-c", "zip -q notes.zip notes.txt"]
        wrap.currentDirectoryURL = workspace.folder
        try wrap.run()
        wrap.waitUntilExit()
        _ = other
        let refused = try workspace.funnel(["ingest", workspace.folder.appendingPathComponent("notes.zip").path, "--kind", "events"])
        #expect(refused.stdout.contains("notes.zip") && refused.stdout.contains("refused") && !refused.stdout.contains("Amplitude"), "\(refused.stdout)\(refused.stderr)")
    }

    @Test("a [[ingest.files]] rule's source reads the files it matches as that vendor's; the summary names the vendor")
    func configuredSource() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let config = try workspace.write("funnel.toml", """
            [[ingest.files]]
            pattern = "calls-*.jsonl"
            source = "rudderstack"
            """)
        let file = try workspace.write("calls-2024-05-03.jsonl",
                                       #"{"type":"track","event":"Level Up","messageId":"r-1","userId":"u3","timestamp":"2024-05-03T10:00:00Z","context":{"app":{"namespace":"com.example.app"}}}"# + "\n")
        let outcome = try workspace.funnel(["ingest", file.path, "--config", config.path])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("rudderstack loaded"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("read as RudderStack events (the Segment spec) (--source or its file rule)"), "\(outcome.stdout)")
        let bad = try workspace.write("bad.toml", "[[ingest.files]]\npattern = \"x*\"\nsource = \"mixpanel\"\n")
        let refused = try workspace.funnel(["ingest", file.path, "--config", bad.path])
        #expect(refused.stderr.contains("expected one of appsflyer, adjust, segment, rudderstack, posthog, amplitude, firebase, got \"mixpanel\""), "\(refused.stderr)")
    }

    @Test("one person seen by two vendors: AppsFlyer's attribution and Segment's purchases join in one report, an identified anonymous buyer included")
    func twoVendorsOnePerson() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let installs = try workspace.write("id1234567_installs.csv", Self.appsFlyerColumns.joined(separator: ",") + "\n" + [
            Self.install("af-1", user: "u1", at: "2024-05-01 10:00:00", media: "Facebook Ads"),
            Self.install("af-2", user: "u2", at: "2024-05-01 11:00:00", media: "googleadwords_int"),
        ].map { Self.appsFlyerRow($0.merging(["App ID": "com.example.app"]) { $1 }) }.joined(separator: "\n") + "\n")
        let calls = try workspace.write("segment-calls.ndjson", [
            #"{"type":"track","event":"Order Completed","messageId":"m-1","userId":"u1","timestamp":"2024-05-01T12:00:00Z","properties":{"revenue":4.99,"currency":"USD"},"context":{"app":{"namespace":"com.example.app"}}}"#,
            #"{"type":"track","event":"Order Completed","messageId":"m-2","anonymousId":"anon-2","timestamp":"2024-05-01T12:30:00Z","properties":{"revenue":9.99,"currency":"USD"},"context":{"app":{"namespace":"com.example.app"}}}"#,
            #"{"type":"identify","messageId":"m-3","anonymousId":"anon-2","userId":"u2","timestamp":"2024-05-01T13:00:00Z","context":{"app":{"namespace":"com.example.app"}}}"#,
        ].joined(separator: "\n") + "\n")
        #expect(try workspace.funnel(["ingest", installs.path, calls.path, "-q"]).status == 0)
        #expect(try workspace.funnel(["compute", "-q"]).status == 0)
        let report = try workspace.funnel(["report", "--app", "com.example.app", "--format", "json"])
        #expect(report.status == 0, "\(report.stderr)")
        let document = try FirstHourTests.json(report.stdout)
        let networks = try #require(document["networks"] as? [[String: Any]])
        func revenue(_ name: String) -> Double? {
            (networks.first { $0["network"] as? String == name }?["gross_revenue"] as? NSNumber)?.doubleValue
        }
        #expect(revenue("Facebook Ads") == 4.99, "\(networks)")
        #expect(revenue("googleadwords_int") == 9.99, "\(networks)")
        #expect(revenue("all") == 14.98, "\(networks)")
    }

    @Test("one person seen by AppsFlyer and Amplitude: --app-id reads the Amplitude export as the MMP's app, so its revenue joins the install's network")
    func appsFlyerAndAmplitude() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let installs = try workspace.write("id1234567_installs.csv", Self.appsFlyerColumns.joined(separator: ",") + "\n" + [
            Self.install("af-1", user: "u1", at: "2024-05-01 10:00:00", media: "Facebook Ads"),
        ].map { Self.appsFlyerRow($0.merging(["App ID": "com.example.app"]) { $1 }) }.joined(separator: "\n") + "\n")
        let events = try workspace.write("123456_2024-05-01_12#0.json", [
            #"{"uuid":"a-1","event_type":"[Amplitude] Revenue","event_time":"2024-05-01 12:00:00.000000","user_id":"u1","device_id":"d-1","amplitude_id":901,"app":123456,"event_properties":{"$currency":"USD"},"revenue":4.99}"#,
        ].joined(separator: "\n") + "\n")
        let wrong = try workspace.funnel(["ingest", events.path, "--source", "posthog", "--app-id", "com.example.app"])
        #expect(wrong.status != 0 && wrong.stderr.contains("--app-id: only an Amplitude export's rows lack their app"), "\(wrong.stderr)")
        #expect(try workspace.funnel(["ingest", installs.path, "-q"]).status == 0)
        #expect(try workspace.funnel(["ingest", events.path, "--app-id", "com.example.app", "-q"]).status == 0)
        #expect(try workspace.funnel(["compute", "-q"]).status == 0)
        let report = try workspace.funnel(["report", "--app", "com.example.app", "--format", "json"])
        #expect(report.status == 0, "\(report.stderr)")
        let document = try FirstHourTests.json(report.stdout)
        let networks = try #require(document["networks"] as? [[String: Any]])
        let revenue = (networks.first { $0["network"] as? String == "Facebook Ads" }?["gross_revenue"] as? NSNumber)?.doubleValue
        #expect(revenue == 4.99, "\(networks)")
    }

    @Test("the same installs and purchases as AppsFlyer reports and as an Adjust export give the same report")
    func sameDataTwoVendors() throws {
        func networks(_ files: [(String, String)]) throws -> [[String: String]] {
            let workspace = try Workspace()
            defer { workspace.remove() }
            let paths = try files.map { try workspace.write($0.0, $0.1).path }
            #expect(try workspace.funnel(["ingest"] + paths + ["-q"]).status == 0)
            #expect(try workspace.funnel(["compute", "-q"]).status == 0)
            let report = try workspace.funnel(["report", "--app", "com.example.app", "--format", "json"])
            let document = try FirstHourTests.json(report.stdout)
            let rows = try #require(document["networks"] as? [[String: Any]])
            return rows.map { row in row.mapValues { "\($0)" } }.sorted { ($0["network"] ?? "") < ($1["network"] ?? "") }
        }
        let header = Self.appsFlyerColumns.joined(separator: ",") + "\n"
        let appsFlyer = try networks([
            ("id1_installs.csv", header + [
                Self.install("af-1", user: "u1", at: "2024-05-01 10:00:00", media: "Facebook Ads", extra: ["Campaign": "spring", "Country Code": "US"]),
                Self.install("af-2", user: "u2", at: "2024-05-01 11:00:00", media: "organic", extra: ["Country Code": "DE"]),
            ].map { Self.appsFlyerRow($0.merging(["App ID": "com.example.app"]) { $1 }) }.joined(separator: "\n") + "\n"),
            ("id1_in-app-events.csv", header + Self.appsFlyerRow(Self.inApp("af-1", user: "u1", name: "af_purchase", at: "2024-05-02 12:00:00",
                extra: ["Event Revenue": "4.99", "Event Revenue Currency": "USD", "App ID": "com.example.app"])) + "\n"),
        ])
        let adjust = try networks([("adjust_export.csv", """
            {activity_kind},{created_at},{app_id},{adid},{network_name},{campaign_name},{country},{os_name},{event_name},{revenue_float},{currency},user_id
            install,1714557600,com.example.app,adj-1,Facebook Ads,spring,us,ios,,,,u1
            install,1714561200,com.example.app,adj-2,Organic,,de,ios,,,,u2
            event,1714651200,com.example.app,adj-1,Facebook Ads,spring,us,ios,af_purchase,4.99,USD,u1

            """)])
        #expect(appsFlyer.contains { $0["network"] == "Facebook Ads" && $0["gross_revenue"] == "4.99" }, "\(appsFlyer)")
        #expect(appsFlyer.contains { $0["network"] == "organic" }, "\(appsFlyer)")
        #expect(appsFlyer == adjust)
    }
}
