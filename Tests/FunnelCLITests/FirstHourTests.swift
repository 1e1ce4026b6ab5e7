import Foundation
import PostgresClient
import Testing
import TestSupport

/// A new user's first hour with their own files (issue "The first hour with your own data"): each
/// test meets the binary as that user did, on a fresh database, and holds what got in the way.
@Suite("The first hour with your own data")
struct FirstHourTests {
    /// A fresh, unmigrated database and a scratch folder; `funnel` runs against the database.
    struct Workspace {
        let settings: ConnectionSettings
        let folder: URL

        init() throws {
            settings = try TestCluster.freshDatabase()
            folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-first-hour")
        }

        var environment: [String: String] { ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""] }

        /// Runs `funnel arguments...` in `directory` (the scratch folder by default).
        func funnel(_ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:]) throws -> FunnelExecutable.Outcome {
            try FunnelExecutable.run(arguments, environment: environment.merging(extra) { $1 },
                                     currentDirectory: directory ?? folder)
        }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> URL {
            let url = folder.appending(path: name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return url
        }

        /// An installs file for two apps: `com.a.app` with `aUsers` users, `com.b.app` with 2.
        func installs(_ name: String, aUsers: Int = 6, day: String = "2024-05-02") throws -> URL {
            var text = "event_id,app_id,user_id,installed_at,network,country\n"
            for user in 0..<aUsers { text += "a\(user),com.a.app,ua\(user),\(day)T10:00:00Z,\(user % 2 == 0 ? "meta" : "organic"),DE\n" }
            text += "b0,com.b.app,ub0,\(day)T11:00:00Z,meta,FR\nb1,com.b.app,ub1,\(day)T12:00:00Z,organic,FR\n"
            return try write(name, text)
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: 1. The schema

    @Test("every command that needs the schema creates it itself on a new database: no raw 'relation does not exist'")
    func commandsCreateTheSchema() throws {
        let commands: [[String]] = [
            ["ingest", "exports"], ["compute"], ["report"], ["status"], ["query", "funnel", "--step", "install", "--step", "app_open"],
        ]
        for command in commands {
            let workspace = try Workspace()
            defer { workspace.remove() }
            _ = try workspace.installs("exports/installs-1.csv")
            let outcome = try workspace.funnel(command)
            // A funnel over no events is a usage error that says to load files first.
            let expected: Int32 = command.first == "query" ? 2 : 0
            #expect(outcome.status == expected, "\(command): \(outcome.stderr)")
            #expect(!outcome.stderr.contains("does not exist") && !outcome.stdout.contains("does not exist"), "\(command): \(outcome.stderr)")
            #expect(outcome.stderr.contains("created the schema"), "\(command): \(outcome.stderr)")
            let again = try workspace.funnel(command)
            #expect(again.status == expected && !again.stderr.contains("created the schema"), "\(command), second time: \(again.stderr)")
            if command.first == "query" { #expect(outcome.stderr.contains("no events are loaded yet: load files with funnel ingest first")) }
        }
    }

    // MARK: 2. The configuration in force

    @Test("the configuration in force is shown by compute (--json too) and in every report; a change warns and says what the rebuild redoes")
    func configurationInForce() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("exports/installs-1.csv")
        let project = workspace.folder.appending(path: "project")
        try workspace.write("project/funnel.toml", "time_zone = \"Asia/Tokyo\"\nrevenue_share = 0.7\n")
        #expect(try workspace.funnel(["ingest", workspace.folder.appending(path: "exports").path]).status == 0)

        let first = try workspace.funnel(["compute", "--json"], in: project)
        #expect(first.status == 0, "\(first.stderr)")
        let configuration = try #require(try Self.json(first.stdout)["configuration"] as? [String: Any])
        let toml = project.appending(path: "funnel.toml").standardizedFileURL.path
        #expect(configuration["source"] as? String == toml)
        let settings = try #require(configuration["settings"] as? [String: String])
        #expect(settings["time_zone"] == "Asia/Tokyo" && settings["revenue_share"] == "0.7" && settings["day_rule"] == "calendar")
        #expect(configuration["changed_since_last_compute"] as? Bool == false)
        #expect(!first.stderr.contains("warning: the configuration differs"))

        let text = try workspace.funnel(["report", "--app", "com.a.app"]).stdout.replacingOccurrences(of: "\n  ", with: " ")
        #expect(text.contains("computed under \(toml): time zone Asia/Tokyo, day rule calendar, revenue share 0.7"), "\(text)")
        #expect(text.contains("CONFIGURATION") && text.contains("regular_user.opens = 3"))
        let files = try workspace.funnel(["report", "--app", "com.a.app", "--format", "text,csv,html,json", "--out", "reports"])
        #expect(files.status == 0, "\(files.stderr)")
        let reports = workspace.folder.appending(path: "reports")
        let reportJSON = try Self.json(String(decoding: try Data(contentsOf: reports.appending(path: "report.json")), as: UTF8.self))
        let scope = try #require(reportJSON["scope"] as? [String: Any])
        let recorded = try #require(scope["configuration"] as? [String: Any])
        #expect(recorded["source"] as? String == toml)
        #expect((recorded["settings"] as? [[String: String]])?.contains { $0["key"] == "time_zone" && $0["value"] == "Asia/Tokyo" } == true)
        let html = try String(contentsOf: reports.appending(path: "report.html"), encoding: .utf8)
        #expect(html.contains("Computed under \(toml): time zone Asia/Tokyo"))
        let csv = try String(contentsOf: reports.appending(path: "configuration.csv"), encoding: .utf8)
        #expect(csv.contains("source,\(toml)\r\n") && csv.contains("time_zone,Asia/Tokyo\r\n"))

        // From another folder: no funnel.toml there, so the defaults; compute says so before rebuilding.
        let elsewhere = try workspace.funnel(["compute", "--json"])
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        #expect(elsewhere.stderr.contains("warning: the configuration differs from the one the data was last computed with (\(toml), now the built-in defaults)"),
                "\(elsewhere.stderr)")
        #expect(elsewhere.stderr.contains("time_zone Asia/Tokyo -> UTC, revenue_share 0.7 -> 1.0"))
        #expect(elsewhere.stderr.contains("Everything is recomputed under the new settings: 8 user(s) over 2 cohort day(s); the last compute took"),
                "\(elsewhere.stderr)")
        let changed = try #require(try Self.json(elsewhere.stdout)["configuration"] as? [String: Any])
        #expect(changed["changed_since_last_compute"] as? Bool == true)
        #expect(changed["source"] is NSNull || changed["source"] == nil)
        #expect((changed["changes"] as? [[String: Any]])?.map { $0["key"] as? String } == ["time_zone", "revenue_share"])
        #expect(try workspace.funnel(["report", "--app", "com.a.app"]).stdout.contains("computed under built-in defaults (no funnel.toml): time zone UTC"))

        // The rebuild recorded the defaults: the next compute under them warns no more.
        let again = try workspace.funnel(["compute"])
        #expect(again.status == 0 && !again.stderr.contains("warning: the configuration differs"), "\(again.stderr)")
        // A --from/--to compute under a changed configuration rebuilds only its range, so the data
        // is not recorded as computed under it: the next compute warns again and rebuilds everything.
        let ranged = try workspace.funnel(["compute", "--from", "2024-05-02", "--to", "2024-05-02"], in: project)
        #expect(ranged.status == 0 && ranged.stderr.contains("warning: the configuration differs"), "\(ranged.stderr)")
        let whole = try workspace.funnel(["compute", "--json"], in: project)
        #expect(whole.stderr.contains("warning: the configuration differs from the one the data was last computed with (the built-in defaults, now \(toml))"),
                "\(whole.stderr)")
        #expect((try Self.json(whole.stdout)["mode"] as? String) == "full", "\(whole.stdout)")
        #expect(try workspace.funnel(["compute"], in: project).stderr.contains("warning: the configuration differs") == false)
    }

    // MARK: 3. funnel run

    @Test("funnel run publishes nothing while files are still being copied, and nothing when nothing was computed")
    func runPublishesOnlyWhatWasComputed() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("inbox/installs-1.csv")
        let arguments = ["run", "--inbox", "inbox", "--reports", "reports", "--recheck-seconds", "0"]
        let copying = try workspace.funnel(arguments)
        #expect(copying.status == 0, "\(copying.stderr)")
        #expect(copying.stdout.contains("nothing is loaded yet, so no report was written"), "\(copying.stdout)")
        #expect(copying.stdout.contains("1 file(s) still being written"))
        #expect(!FileManager.default.fileExists(atPath: workspace.folder.appending(path: "reports/latest").path))

        let loaded = try workspace.funnel(arguments + ["--settle-seconds", "0"])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let latest = workspace.folder.appending(path: "reports/latest")
        let first = try FileManager.default.destinationOfSymbolicLink(atPath: latest.path)
        let again = try workspace.funnel(arguments + ["--settle-seconds", "0"])
        #expect(again.stdout.contains("nothing new"), "\(again.stdout)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: latest.path) == first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.folder.appending(path: "reports").path)
            .filter { !$0.hasPrefix(".") }.count == 2, "one dated folder and latest")
    }

    @Test("funnel run reports every app, one folder each; --app picks one and a wrong one names the apps there are")
    func runReportsEveryApp() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("inbox/installs-1.csv")
        let arguments = ["run", "--inbox", "inbox", "--reports", "reports", "--settle-seconds", "0", "--recheck-seconds", "0"]
        let outcome = try workspace.funnel(arguments + ["--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try Self.json(outcome.stdout)["apps"] as? [String] == ["com.a.app", "com.b.app"])
        for app in ["com.a.app", "com.b.app"] {
            let text = try String(contentsOf: workspace.folder.appending(path: "reports/latest/\(app)/report.txt"), encoding: .utf8)
            #expect(text.hasPrefix("funnel report: \(app)\n"))
            #expect(FileManager.default.fileExists(atPath: workspace.folder.appending(path: "reports/latest/\(app)/report.html").path))
        }

        _ = try workspace.installs("inbox/installs-2.csv", aUsers: 8, day: "2024-05-03")
        let wrong = try workspace.funnel(arguments + ["--app", "com.nope.app"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--app com.nope.app: no computed data for this app; apps with data: com.a.app, com.b.app"), "\(wrong.stderr)")
        _ = try workspace.installs("inbox/installs-3.csv", aUsers: 9, day: "2024-05-04")
        let one = try workspace.funnel(arguments + ["--app", "com.b.app"])
        #expect(one.status == 0, "\(one.stderr)")
        let text = try String(contentsOf: workspace.folder.appending(path: "reports/latest/report.txt"), encoding: .utf8)
        #expect(text.hasPrefix("funnel report: com.b.app\n"))
    }

    @Test("a refused file is moved to the quarantine with its reason beside it; the run goes on and the next one is clean")
    func runQuarantinesRefusedFiles() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("inbox/installs-1.csv")
        try workspace.write("inbox/purchases-1.csv", "event_id,app_id\np1,com.a.app\n")
        let arguments = ["run", "--inbox", "inbox", "--reports", "reports", "--settle-seconds", "0", "--recheck-seconds", "0"]
        let first = try workspace.funnel(arguments)
        #expect(first.status == 1, "a refused file is worth an alert once")
        #expect(first.stdout.contains("purchases-1.csv  refused: "), "\(first.stdout)")
        #expect(FileManager.default.fileExists(atPath: workspace.folder.appending(path: "reports/latest/com.a.app/report.txt").path),
                "the other files were loaded and reported")
        let quarantine = workspace.folder.appending(path: "inbox/quarantine")
        let moved = try FileManager.default.subpathsOfDirectory(atPath: quarantine.path)
        let file = try #require(moved.first { $0.hasSuffix("/purchases-1.csv") })
        let reason = try String(contentsOf: quarantine.appending(path: file + ".reason.txt"), encoding: .utf8)
        #expect(reason.contains("lacks the required purchases columns") && reason.contains("put it back into the inbox"), "\(reason)")
        #expect(first.stdout.contains("moved to \(quarantine.appending(path: file).path)"))
        #expect(!FileManager.default.fileExists(atPath: workspace.folder.appending(path: "inbox/purchases-1.csv").path))

        let second = try workspace.funnel(arguments)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("nothing new"))
    }

    // MARK: 4. Small things a user meets

    @Test("an empty file gets a note; --app of an unknown app names the apps; --version; every config error at once")
    func smallThings() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("exports/installs-1.csv")
        try workspace.write("exports/opens-1.csv", "")
        try workspace.write("exports/purchases-1.csv", "event_id,app_id,user_id,purchased_at,revenue,currency\n")
        let ingest = try workspace.funnel(["ingest", "exports"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(ingest.stdout.contains("opens-1.csv") && ingest.stdout.contains("note: empty file: no header and no rows; check the export that wrote it"),
                "\(ingest.stdout)")
        #expect(ingest.stdout.contains("note: no rows, only a header; check the export that wrote it"))
        #expect(try workspace.funnel(["compute"]).status == 0)

        let report = try workspace.funnel(["report", "--app", "com.nope.app"])
        #expect(report.status == 2)
        #expect(report.stderr.contains("--app com.nope.app: no computed data for this app; apps with data: com.a.app, com.b.app"), "\(report.stderr)")
        #expect(report.stdout.isEmpty)

        let version = try workspace.funnel(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.wholeMatch(of: /funnel \d+\.\d+\.\d+ \(schema \d{4}_[a-z0-9_]+\)\n/) != nil, "\(version.stdout)")

        try workspace.write("bad.toml", "time_zone = \"Mars/Base\"\nrevenue_share = 3\n[funnel]\nwindow_dayz = 3\n[regular_user]\nopens = 0\n")
        let config = try workspace.funnel(["compute", "--config", "bad.toml"])
        #expect(config.status == 2)
        let path = workspace.folder.appending(path: "bad.toml").standardizedFileURL.path
        #expect(config.stderr.contains("4 problems in the configuration:"), "\(config.stderr)")
        for (line, key) in [(1, "time_zone"), (2, "revenue_share"), (4, "funnel.window_dayz"), (6, "regular_user.opens")] {
            #expect(config.stderr.contains("\(path):\(line): \(key): "), "\(key): \(config.stderr)")
        }
    }

    @Test("funnel status: what is loaded per app and kind, the last file, the last compute and what it waits for")
    func status() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let empty = try workspace.funnel(["status"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("nothing is loaded yet; 'funnel ingest DIR' loads your exports"))
        let installs = try workspace.installs("exports/installs-1.csv")
        #expect(try workspace.funnel(["ingest", installs.path]).status == 0)
        #expect(try workspace.funnel(["compute"]).status == 0)
        let opens = try workspace.write("exports/opens-1.csv", "event_id,app_id,user_id,opened_at\no1,com.a.app,ua0,2024-05-03T09:00:00Z\n")
        #expect(try workspace.funnel(["ingest", opens.path]).status == 0)
        try workspace.write("exports/purchases-1.csv", "nonsense\u{0}\n")
        _ = try workspace.funnel(["ingest", workspace.folder.appending(path: "exports/purchases-1.csv").path])

        let outcome = try workspace.funnel(["status"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let text = outcome.stdout
        #expect(text.contains("app com.a.app: computed through 2024-05-02"), "\(text)")
        #expect(text.contains("  installs             6 rows  2024-05-02 .. 2024-05-02"), "\(text)")
        #expect(text.contains("  opens                1 rows  2024-05-03 .. 2024-05-03"))
        #expect(text.contains("app com.b.app: computed through 2024-05-02"))
        #expect(text.contains("opens loaded: 1 file(s), last \(opens.path) at "))
        #expect(text.contains("purchases refused: 1 file(s)") && text.contains("binary content"))
        #expect(text.contains(/last compute: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, (full|incremental), 2 cohort day\(s\) and 8 user\(s\) rebuilt \(1 run\(s\) in all\)/), "\(text)")
        #expect(text.contains("waiting for:\n  1 loaded file(s) not computed yet: run 'funnel compute'"), "\(text)")

        #expect(try workspace.funnel(["compute"]).status == 0)
        let json = try Self.json(try workspace.funnel(["status", "--json"]).stdout)
        #expect((json["waiting_for"] as? [Any])?.isEmpty == true)
        #expect((json["apps"] as? [[String: Any]])?.map { $0["app"] as? String } == ["com.a.app", "com.b.app"])
    }

    @Test("rows without a user id: a device's install counts for its device, a later row ties it to the user, status counts both")
    func deviceRows() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let installs = try workspace.write("exports/installs-1.csv", """
            event_id,app_id,user_id,installed_at,network,device_id
            d1,com.a.app,,2024-05-02T10:00:00Z,meta,IDFA-1
            d2,com.a.app,,2024-05-02T11:00:00Z,meta,IDFA-2
            d3,com.a.app,,2024-05-02T12:00:00Z,meta,

            """)
        let ingest = try workspace.funnel(["ingest", installs.path, "--show-rejects"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect((ingest.stdout + ingest.stderr).contains(
            "\(installs.path):4: missing required field user_id (or device_id): a row needs the app's user id or a device id"),
            "\(ingest.stdout)\(ingest.stderr)")
        let opens = try workspace.write("exports/opens-1.csv", "event_id,app_id,user_id,opened_at,device_id\no1,com.a.app,u1,2024-05-03T09:00:00Z,IDFA-1\n")
        #expect(try workspace.funnel(["ingest", opens.path]).status == 0)
        #expect(try workspace.funnel(["compute"]).status == 0)
        let status = try workspace.funnel(["status"]).stdout
        #expect(status.contains("  devices: 1 user(s) known by a device alone, 1 device(s) linked to a user id"), "\(status)")
        let json = try Self.json(try workspace.funnel(["status", "--json"]).stdout)
        let identity = (json["apps"] as? [[String: Any]])?.first?["identity"] as? [String: Any]
        #expect(identity?["device_only_users"] as? Int == 1 && identity?["linked_devices"] as? Int == 1, "\(json)")
    }

    // MARK: 5. The terminal

    static let script = ["/usr/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `funnel arguments...` on a pseudo-terminal (util-linux `script`), as a user at a
    /// terminal sees it: stderr is a terminal, so the progress line and short log lines are on.
    static func onTerminal(_ workspace: Workspace, _ arguments: [String]) throws -> String {
        let command = ([FunnelExecutable.url.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(script))
        process.arguments = ["-qec", command, "/dev/null"]
        process.currentDirectoryURL = workspace.folder
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in workspace.environment { environment[key] = value }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("on a terminal: the progress line never runs into log lines, no doubled unit, a refusal said once, file names not <fd:N>",
          .enabled(if: script != nil, "util-linux script is not installed"))
    func terminal() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        _ = try workspace.installs("exports/installs-1.csv")
        try workspace.write("exports/purchases-1.csv", "event_id,app_id\np1,com.a.app\n")
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "printf 'event_id,app_id,user_id,opened_at\\n' | gzip | head -c 20 > exports/opens-1.csv.gz"]
        gzip.currentDirectoryURL = workspace.folder
        try gzip.run()
        gzip.waitUntilExit()

        let verbose = try Self.onTerminal(workspace, ["ingest", "exports", "--verbose"])
        #expect(verbose.contains("rows/s"), "the progress line was drawn: \(verbose)")
        #expect(verbose.contains("loading file"))
        for (index, piece) in verbose.components(separatedBy: "rows/s").enumerated().dropFirst() {
            #expect(piece.isEmpty || piece.hasPrefix("\r"), "text right after the progress line (piece \(index)): \(piece.prefix(60))")
        }
        #expect(!verbose.contains("seconds seconds"))
        #expect(verbose.contains("load.seconds=0."), "\(verbose)")
        #expect(!verbose.contains("<fd:"), "\(verbose)")
        #expect(verbose.contains("opens-1.csv.gz"))

        let plain = try Self.onTerminal(workspace, ["ingest", "exports", "--workers", "1"])
        let reason = "lacks the required purchases columns"
        #expect(plain.components(separatedBy: reason).count == 2, "the refusal reason once: \(plain)")
        #expect(!plain.contains("exports/purchases-1.csv: exports/purchases-1.csv"))
    }

    // MARK: 6. The reports

    @Test("the text report never cuts a cell, users lost agree across text and CSV, jargon has a legend, charts have keys and axes")
    func reportsReadWell() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let generate = try workspace.funnel(["generate", "--out", "exports", "--users", "3000", "--days", "45", "--seed", "7"])
        #expect(generate.status == 0, "\(generate.stderr)")
        try FileManager.default.removeItem(at: workspace.folder.appending(path: "exports/truth.json"))
        #expect(try workspace.funnel(["ingest", "exports"]).status == 0)
        #expect(try workspace.funnel(["compute"]).status == 0)
        let written = try workspace.funnel(["report", "--format", "text,csv,html,json", "--out", "reports", "--by", "network,campaign,country"])
        #expect(written.status == 0, "\(written.stderr)")
        let reports = workspace.folder.appending(path: "reports")
        let text = try String(contentsOf: reports.appending(path: "report.txt"), encoding: .utf8)
        #expect(!text.contains("~"), "no cut cell: \(text.split(separator: "\n").filter { $0.contains("~") })")
        for line in text.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
        let unwrapped = text.replacingOccurrences(of: "\n  ", with: " ")
        #expect(unwrapped.contains("RR: relative risk = drop hit / drop not; q: the p-value adjusted"))
        #expect(unwrapped.contains("amplif.: amplification"))

        let csv = try String(contentsOf: reports.appending(path: "friction.csv"), encoding: .utf8)
        let rows = csv.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map { $0.components(separatedBy: ",") }
        #expect(!rows.isEmpty)
        for row in rows.prefix(15) {
            let lost = row[8]
            #expect(Int(lost) != nil, "users lost is a whole number: \(row)")
            #expect(text.split(separator: "\n").contains { line in
                let cells = line.split(separator: " ")
                return cells.first.map(String.init) == row[0] && cells.count > 2 && cells[1] == row[1]
                    && cells[cells.count - 2].replacingOccurrences(of: ",", with: "") == lost
            }, "the text's friction row for \(row[0]) / \(row[1]) says \(lost) users lost")
        }

        let html = try String(contentsOf: reports.appending(path: "report.html"), encoding: .utf8)
        #expect(html.contains("Colour key: darker cells retained more") && html.contains(">50%+</text>"))
        let ltv = try #require(html.components(separatedBy: "aria-label=\"LTV curve of").dropFirst().first)
            .components(separatedBy: "</svg>")[0]
        #expect(ltv.components(separatedBy: "stroke=\"#e3e3e3\"").count - 1 >= 3, "several value ticks")
        #expect(ltv.components(separatedBy: "text-anchor=\"middle\"").count - 1 >= 3, "several day ticks")
        #expect(html.contains("Relative risk = drop-off hit / drop-off not hit"))
    }

    @Test("a table wider than the page is split into blocks of columns, never cut")
    func wideTablesSplit() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        var text = "event_id,app_id,user_id,installed_at,network,country\n"
        for user in 0..<3 { text += "i\(user),com.a.app,u\(user),2024-05-02T10:00:00Z,an-ad-network-with-a-very-long-name-indeed-\(user),DE\n" }
        try workspace.write("exports/installs-1.csv", text)
        #expect(try workspace.funnel(["ingest", "exports"]).status == 0)
        #expect(try workspace.funnel(["compute"]).status == 0)
        let report = try workspace.funnel(["report"]).stdout
        #expect(!report.contains("~"))
        #expect(report.contains("an-ad-network-with-a-very-long-name-indeed-2"))
        let networkHeaders = report.split(separator: "\n").filter { $0.hasPrefix("  network ") }
        #expect(networkHeaders.count >= 2, "the networks table continues in a second block: \(report)")
    }

    // MARK: 7. make

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("make demo does not install chromium, make test does; make test keeps its whole output in a log and lists the slowest tests",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "make is not installed"))
    func makeTargets() throws {
        func dryRun(_ target: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/make")
            process.arguments = ["-n", "--no-print-directory", target]
            process.currentDirectoryURL = Self.repository
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        let demo = try dryRun("demo")
        #expect(demo.contains("postgresql") && !demo.contains("chromium"), "\(demo)")
        let test = try dryRun("test")
        #expect(test.contains("chromium"))
        #expect(test.contains("tee .build/test-output.log") && test.contains("slowest tests:"))
    }

    @Test("test folders live under one folder per test process, removed when it exits")
    func temporaryFolders() throws {
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-probe")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(folder.deletingLastPathComponent().path == "/tmp/funnel-tests-\(getpid())")
    }

    // MARK: 8. Old dates

    @Test("dates from 1970-01-01 on load; earlier ones are refused with the bound in the reason")
    func oldDates() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("exports/installs-1.csv", """
            event_id,app_id,user_id,installed_at,network,country
            i1,com.old.app,u1,1970-01-01T00:00:00Z,organic,US
            i2,com.old.app,u2,1986-03-04T10:00:00Z,organic,US
            i3,com.old.app,u3,1969-12-31T23:59:59Z,organic,US

            """)
        let outcome = try workspace.funnel(["ingest", "exports", "--show-rejects"])
        #expect(outcome.stdout.contains("2 rows, 0 duplicates, 1 rejected"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains(":4: installed_at: \"1969-12-31T23:59:59Z\" is before 1970-01-01 (the Unix epoch, the earliest date funnel accepts)"))
        #expect(try workspace.funnel(["compute"]).status == 0)
        #expect(try workspace.funnel(["status"]).stdout.contains("installs             2 rows  1970-01-01 .. 1986-03-04"))
    }

    // MARK: The README

    @Test("the README's walk with your own files, word for word")
    func readmeWalk() throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let readme = try String(contentsOf: Self.repository.appending(path: "README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Five minutes with your own files").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let commands = block.split(separator: "\n").map { line in
            String(line.split(separator: "#", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        #expect(commands.first == "make release" && commands.dropFirst().first?.hasPrefix("export PATH=") == true, "\(commands)")
        let generate = try workspace.funnel(["generate", "--out", "exports", "--users", "400", "--days", "20"])
        #expect(generate.status == 0, "\(generate.stderr)")
        try FileManager.default.removeItem(at: workspace.folder.appending(path: "exports/truth.json"))
        for command in commands.dropFirst(2) {
            let words = command.split(separator: " ").map(String.init)
            #expect(words.first == "funnel", "every step after the build is a funnel command: \(command)")
            let outcome = try workspace.funnel(Array(words.dropFirst()))
            #expect(outcome.status == 0, "\(command): \(outcome.stderr)")
        }
        for name in ["report.txt", "report.html", "report.json", "funnel.csv", "configuration.csv"] {
            #expect(FileManager.default.fileExists(atPath: workspace.folder.appending(path: "reports/\(name)").path), "\(name)")
        }
    }
}
