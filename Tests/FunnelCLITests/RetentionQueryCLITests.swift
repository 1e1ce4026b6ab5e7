import Foundation
import PostgresClient
import Testing
import TestSupport

/// `funnel query retention` end to end: flags to the answer in text, CSV and JSON, and usage
/// errors that name the flag.
@Suite("funnel query retention")
struct RetentionQueryCLITests {
    /// Cohort 1 May 2024 (u1, u2, u3): u1 opens on days 1 and 2, u2 on day 2, u3 never; cohort 2
    /// May (u4) opens on day 1. The last date with data is 3 May.
    static func database() throws -> ConnectionSettings {
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        for table in ["raw_installs", "raw_opens"] {
            try connection.query("select ensure_month_partitions($1, '2024-05-01', '2024-05-31')", [table])
        }
        try connection.execute("""
            insert into raw_installs (event_id, app_id, user_id, installed_at, network, file_id) values
              ('i1', 'a', 'u1', '2024-05-01T09:00:00Z', 'adnova', 0), ('i2', 'a', 'u2', '2024-05-01T10:00:00Z', 'organic', 0),
              ('i3', 'a', 'u3', '2024-05-01T11:00:00Z', 'adnova', 0), ('i4', 'a', 'u4', '2024-05-02T11:00:00Z', 'adnova', 0);
            insert into raw_opens (event_id, app_id, user_id, opened_at, file_id) values
              ('o1', 'a', 'u1', '2024-05-02T09:00:00Z', 0), ('o2', 'a', 'u1', '2024-05-03T09:00:00Z', 0),
              ('o3', 'a', 'u2', '2024-05-03T09:00:00Z', 0), ('o4', 'a', 'u4', '2024-05-03T12:00:00Z', 0)
            """)
        return settings
    }

    @Test("text, CSV and JSON give the same triangle; later periods are blank, not 0")
    func formats() throws {
        let settings = try Self.database()
        let environment = ["DATABASE_URL": settings.conninfo]
        let csv = try FunnelExecutable.run(["query", "retention", "--periods", "2", "--format", "csv"], environment: environment)
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "breakdown,cohort,period,cohort_size,retained,rate,rolling_retained,rolling_rate")
        #expect(lines.contains(",2024-05-01,1,3,1,\(1.0 / 3),2,\(2.0 / 3)"))
        #expect(lines.contains(",2024-05-01,2,3,2,\(2.0 / 3),2,\(2.0 / 3)"))
        #expect(lines.contains(",2024-05-02,1,1,1,1.0,1,1.0"))
        #expect(lines.contains(",2024-05-02,2,1,,,,"))
        // Pooled day 1: 2 of 4 over both cohorts.
        #expect(lines.contains(",all,1,4,2,0.5,3,0.75"))
        let json = try FunnelExecutable.run(["query", "retention", "--periods", "2", "--format", "json", "--as-of", "2024-05-10"],
                                            environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(document?["as_of"] as? String == "2024-05-10")
        #expect(document?["data_through"] as? String == "2024-05-03")
        let series = (document?["series"] as? [[String: Any]])?.first
        let cohorts = series?["cohorts"] as? [[String: Any]]
        #expect(cohorts?.last?["retained"] as? [Int] == [1, 1, 0])
        let text = try FunnelExecutable.run(["query", "retention", "--periods", "2", "--breakdown", "network",
                                             "--breakdown-type", "person"], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("network = adnova"))
        #expect(text.stdout.contains("install -> app_open (first time; by calendar day; time zone UTC"))
        // Weekly cohorts, daily periods: the week of 28 April holds all four; u1 and u4 are back on
        // their day 1, u1 and u2 on day 2.
        let weekly = try FunnelExecutable.run(["query", "retention", "--periods", "2", "--cohort-period", "week", "--as-of", "2024-05-10",
                                               "--format", "csv"], environment: environment)
        #expect(weekly.stdout.contains(",2024-04-28,1,4,2,0.5,3,0.75\n"), "\(weekly.stdout)\(weekly.stderr)")
        #expect(weekly.stdout.contains(",2024-04-28,2,4,2,0.5,2,0.5\n"), "\(weekly.stdout)")
        // The time zone comes from funnel.toml unless --time-zone says otherwise.
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "retention-config")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appending(path: "funnel.toml").path
        try "time_zone = \"Asia/Tokyo\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let tokyo = try FunnelExecutable.run(["query", "retention", "--periods", "2", "--config", config], environment: environment)
        #expect(tokyo.stdout.contains("time zone Asia/Tokyo"), "\(tokyo.stdout)\(tokyo.stderr)")
        let chosen = try FunnelExecutable.run(["query", "retention", "--periods", "2", "--config", config, "--time-zone", "Europe/Berlin"],
                                              environment: environment)
        #expect(chosen.stdout.contains("time zone Europe/Berlin"), "\(chosen.stderr)")
    }

    @Test("bad flags exit 2 naming the flag")
    func usageErrors() throws {
        let settings = try Self.database()
        let environment = ["DATABASE_URL": settings.conninfo]
        let cases: [([String], String)] = [
            (["--period", "year"], "--period year"),
            (["--start", "install where"], "install where"),
            (["--first-time", "--recurring"], "--first-time and --recurring"),
            (["--min-occurrences", "0"], "--min-occurrences"),
            (["--as-of", "2024-02-30"], "--as-of 2024-02-30"),
            (["--period", "week", "--day-rule", "24h"], "--day-rule"),
            (["--period", "week", "--cohort-period", "month"], "--cohort-period month"),
        ]
        for (flags, named) in cases {
            let outcome = try FunnelExecutable.run(["query", "retention"] + flags, environment: environment)
            #expect(outcome.status == 2, "\(flags): \(outcome.stderr)")
            #expect(outcome.stderr.contains(named), "\(flags): \(outcome.stderr)")
        }
        // An event never loaded is no usage error: nobody starts, and a warning names the nearest event.
        let typo = try FunnelExecutable.run(["query", "retention", "--start", "instal", "--from", "2024-05-01", "--to", "2024-05-02"],
                                            environment: environment)
        #expect(typo.status == 0, "\(typo.stderr)")
        #expect(typo.stderr.contains("--start instal: app a has no event named instal; counted as 0 users; nearest names: install"),
                "\(typo.stderr)")
        #expect(typo.stdout.contains("0 users in 2 cohorts"), "\(typo.stdout)")
    }
}
