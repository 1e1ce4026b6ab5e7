import Foundation
import FunnelGenerate
import PostgresClient
import TestSupport
import Testing

/// A database and the folders of one `funnel run` test; the binary runs as cron would run it.
struct BatchFixture {
    let settings: ConnectionSettings
    let root: URL
    var inbox: URL { root.appending(path: "inbox") }
    var reports: URL { root.appending(path: "reports") }
    var archive: URL { root.appending(path: "archive") }

    init(settings: ConnectionSettings? = nil) throws {
        self.settings = try settings ?? TestCluster.freshDatabase()
        root = try TestCluster.makeTemporaryDirectory(prefix: "funnel-run")
        try FileManager.default.createDirectory(at: root.appending(path: "inbox"), withIntermediateDirectories: true)
    }

    func arguments(_ extra: [String] = []) -> [String] {
        ["run", "--database-url", settings.conninfo, "--inbox", inbox.path, "--reports", reports.path,
         "--settle-seconds", "0", "--recheck-seconds", "0"] + extra
    }

    /// Writes a small installs file into the inbox.
    func dropInstalls(_ name: String, users: Range<Int>) throws {
        try drop(name, "event_id,app_id,user_id,installed_at,network,country\n" + users.map { user in
            "i\(user),app,u\(user),2024-05-0\(1 + user % 5)T10:00:00Z,\(user % 2 == 0 ? "meta" : "organic"),DE\n"
        }.joined())
    }

    /// Writes a small telemetry (`ux`) file into the inbox: one screen view per user, on the
    /// screens `welcome` and `signup`.
    func dropTelemetry(_ name: String, users: Range<Int>) throws {
        try drop(name, "event_id,app_id,user_id,session_id,occurred_at,screen,type\n" + users.map { user in
            "\(name)-x\(user),app,u\(user),s\(user),2024-05-0\(1 + user % 5)T10:05:00Z,\(user % 2 == 0 ? "welcome" : "signup"),screen_view\n"
        }.joined())
    }

    /// Writes a file into the inbox with its mtime set to a minute ago (settled).
    private func drop(_ name: String, _ text: String) throws {
        let url = inbox.appending(path: name)
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: url.path)
    }

    func latestSummary() throws -> [String: Any] {
        let data = try Data(contentsOf: reports.appending(path: "latest/run.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

@Suite("funnel run, the scheduled batch job", .serialized)
struct BatchRunTests {
    @Test("a run loads the inbox, computes, writes a dated folder with latest, and archives the files")
    func runLoadsComputesReportsAndArchives() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<40)
        try Data("event_id,app_id\n".utf8).write(to: fixture.inbox.appending(path: ".hidden-installs.csv"))
        let outcome = try FunnelExecutable.run(fixture.arguments(["--archive", fixture.archive.path, "--json"]))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        #expect(summary["status"] as? String == "completed")
        #expect((summary["totals"] as? [String: Any])?["rows_loaded"] as? Int == 40)
        let latest = try fixture.latestSummary()
        #expect(latest["status"] as? String == "completed")
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: fixture.reports.appending(path: "latest").path)
        #expect(link.wholeMatch(of: /\d{4}-\d{2}-\d{2}-\d{6}/) != nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.inbox.appending(path: "installs-a.csv").path))
        #expect(FileManager.default.fileExists(atPath: fixture.inbox.appending(path: ".hidden-installs.csv").path))
        let archived = try FileManager.default.subpathsOfDirectory(atPath: fixture.archive.path)
        #expect(archived.contains { $0.hasSuffix("/installs-a.csv") })
        #expect(outcome.stderr.contains("level=info msg=\"run finished\""), "logfmt for the journal")
    }

    @Test("a run with nothing new exits 0, says so, and does no work: latest stays as it was")
    func nothingNewIsAFastNoOp() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<10)
        let first = try FunnelExecutable.run(fixture.arguments())
        #expect(first.status == 0, "\(first.stderr)")
        let before = try FileManager.default.destinationOfSymbolicLink(atPath: fixture.reports.appending(path: "latest").path)
        let folders = try FileManager.default.contentsOfDirectory(atPath: fixture.reports.path).count
        let second = try FunnelExecutable.run(fixture.arguments())
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("nothing new"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.reports.path).count == folders,
                "a no-op run writes no report folder")
        let after = try FileManager.default.destinationOfSymbolicLink(atPath: fixture.reports.appending(path: "latest").path)
        #expect(before == after)
        try fixture.dropInstalls("installs-b.csv", users: 10..<20)
        let third = try FunnelExecutable.run(fixture.arguments(["--json"]))
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("\"status\":\"completed\""))
    }

    @Test("telemetry loads beside the metrics, friction reads it, and the next run finds nothing new")
    func telemetryLoadsBesideTheMetrics() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<20)
        try fixture.dropTelemetry("ux-a.csv", users: 0..<20)
        let first = try FunnelExecutable.run(fixture.arguments(["--json"]))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("ingesting telemetry beside the metrics"), "\(first.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect((summary["totals"] as? [String: Any])?["rows_loaded"] as? Int == 40)
        #expect((summary["totals"] as? [String: Any])?["loaded"] as? Int == 2)
        let files = summary["files"] as? [[String: Any]] ?? []
        #expect(files.contains { ($0["path"] as? String)?.hasSuffix("ux-a.csv") == true && $0["status"] as? String == "loaded" })

        let connection = try fixture.settings.connect()
        func ledgers(_ name: String) throws -> [String] {
            let rows = try connection.query("""
                select (select count(*) from friction_files r where r.file_id = f.file_id)::text
                       || (select count(*) from compute_files c where c.file_id = f.file_id)::text
                from ingest_files f where f.path like '%/' || $1
                """, [name])
            return try rows.rows.map { try $0.decode(String.self, at: 0) }
        }
        #expect(try connection.query("select count(*)::bigint from raw_ux").scalar(Int64.self) == 20)
        #expect(try ledgers("ux-a.csv") == ["11"], "read by friction, and recorded as folded for the metrics")
        #expect(try connection.query("select count(*)::bigint from int_friction_reached").scalar(Int64.self) > 0,
                "friction took in the screens reached")
        let second = try FunnelExecutable.run(fixture.arguments())
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("nothing new"), "\(second.stdout)")

        // Telemetry alone: nothing for the metrics to wait on, so it loads before them.
        try fixture.dropTelemetry("ux-b.csv", users: 20..<30)
        let third = try FunnelExecutable.run(fixture.arguments())
        #expect(third.status == 0, "\(third.stderr)")
        #expect(!third.stderr.contains("beside the metrics"), "\(third.stderr)")
        #expect(try ledgers("ux-b.csv") == ["11"])
        #expect(try FunnelExecutable.run(fixture.arguments()).stdout.contains("nothing new"))
    }

    @Test("a file still being written is left for the next run")
    func fileStillBeingWrittenIsLeft() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<10)
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: fixture.inbox.appending(path: "installs-a.csv").path)
        let outcome = try FunnelExecutable.run(fixture.arguments(["--settle-seconds", "120", "--json"]))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("installs-a.csv"))
        #expect(outcome.stdout.contains("\"still_writing\":[\""))
        let connection = try fixture.settings.connect()
        #expect(try connection.query("select count(*)::bigint from raw_installs").scalar(Int64.self) == 0)
    }

    @Test("a run exits 75 with one line when another run holds the lock")
    func busyWhenAnotherRunHoldsTheLock() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<10)
        let holder = try fixture.settings.connect()
        #expect(try holder.tryAdvisoryLock(AdvisoryLockKey("funnel.run")))
        let outcome = try FunnelExecutable.run(fixture.arguments())
        #expect(outcome.status == 75)
        let lines = outcome.stderr.split(separator: "\n").filter { !$0.hasPrefix("ts=") }
        #expect(lines.count == 1 && lines[0].contains("another funnel run holds the lock"), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.reports.path))
        try holder.advisoryUnlock(AdvisoryLockKey("funnel.run"))
        #expect(try FunnelExecutable.run(fixture.arguments()).status == 0)
    }

    @Test("two runs started together: one does the job, the other exits 75 or finds it done")
    func twoRunsAtOnce() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<500)
        let first = try FunnelExecutable.start(fixture.arguments())
        let second = try FunnelExecutable.start(fixture.arguments())
        first.waitUntilExit()
        second.waitUntilExit()
        let statuses = [first.terminationStatus, second.terminationStatus].sorted()
        #expect(statuses == [0, 0] || statuses == [0, 75], "\(statuses)")
        let connection = try fixture.settings.connect()
        #expect(try connection.query("select count(*)::bigint from raw_installs").scalar(Int64.self) == 500)
    }

    @Test("a run killed during ingest and run again loses nothing, duplicates nothing, and completes latest")
    func killedRunIsCompletedByTheNext() throws {
        let fixture = try BatchFixture()
        defer { fixture.remove() }
        let generated = try Generator.run(GeneratorOptions(outputDirectory: fixture.inbox.path, users: 8_000, days: 20, seed: 5))
        try FileManager.default.removeItem(atPath: generated.truthPath)
        let old = Date().addingTimeInterval(-60)
        for file in generated.files {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: fixture.inbox.appending(path: file.name).path)
        }
        let process = try FunnelExecutable.start(fixture.arguments(["--lease", "15", "--workers", "1"]))
        let watcher = try fixture.settings.connect()
        let deadline = Date().addingTimeInterval(120)
        var loading = false
        while Date() < deadline, process.isRunning {
            let exists = try watcher.query("select to_regclass('ingest_files') is not null").scalar(Bool.self)
            if exists, try watcher.query("select count(*)::bigint from ingest_files where status = 'loaded'").scalar(Int64.self) >= 2,
               try watcher.query("select count(*)::bigint from ingest_files where status = 'loading'").scalar(Int64.self) >= 1 {
                loading = true
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(loading, "the run was caught during ingest")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: fixture.reports.appending(path: "latest").path))

        let rerun = try FunnelExecutable.run(fixture.arguments(["--lease", "15", "--workers", "1", "--json"]))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        for file in generated.files {
            let counts = try watcher.query("""
                select rows_loaded + duplicates + rejected from ingest_files where path = $1 and status = 'loaded'
                """, [fixture.inbox.appending(path: file.name).path]).map { try $0.decode(Int64.self, at: 0) }
            #expect(counts == [Int64(file.rows)], "\(file.name) loaded once, every row accounted for")
        }
        for (table, key) in [("raw_installs", "event_id"), ("raw_opens", "event_id"), ("raw_ux", "event_id"), ("raw_steps", "event_id")] {
            let row = try watcher.query("select count(*)::bigint, count(distinct (app_id, \(key)))::bigint from \(table)")[0]
            #expect(try row.decode(Int64.self, at: 0) == row.decode(Int64.self, at: 1), "\(table) has no duplicates")
        }
        let loadedRows = try watcher.query("select sum(rows_loaded)::bigint from ingest_files where status = 'loaded' and kind = 'ux'").scalar(Int64.self)
        #expect(try watcher.query("select count(*)::bigint from raw_ux").scalar(Int64.self) == loadedRows)
        let latest = try fixture.latestSummary()
        #expect(latest["status"] as? String == "completed")
        let lastCompute = try watcher.query("select max(run_id)::bigint from compute_runs").scalar(Int64.self)
        #expect((latest["compute_run_id"] as? NSNumber)?.int64Value == lastCompute)
        #expect(try watcher.query("select count(*)::bigint from dirty_cohort_days").scalar(Int64.self) == 0)
    }

    @Test("a database down at the start: the run retries, then succeeds once it is back, or fails clearly")
    func databaseDownThenBack() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-run-cluster")
        let cluster = EmbeddedCluster(directory: directory)
        defer {
            _ = try? cluster.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        _ = try cluster.start()
        let fixture = try BatchFixture(settings: ConnectionSettings(conninfo: cluster.conninfo, searchPath: ["funnel", "public"]))
        defer { fixture.remove() }
        try fixture.dropInstalls("installs-a.csv", users: 0..<20)
        _ = try cluster.stop()

        let started = Date()
        let failed = try FunnelExecutable.run(fixture.arguments(["--retry-for", "1"]))
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("cannot reach PostgreSQL"), "\(failed.stderr)")
        #expect(!failed.stderr.contains("password"))
        // A guard against retrying forever, not a speed measurement: --retry-for 1 must give up.
        #expect(Date().timeIntervalSince(started) < 60)

        let process = try FunnelExecutable.start(fixture.arguments(["--retry-for", "60"]))
        Thread.sleep(forTimeInterval: 2)
        _ = try cluster.start()
        process.waitUntilExit()
        let stderr = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("transient database error, retrying"))
        let connection = try fixture.settings.connect()
        #expect(try connection.query("select count(*)::bigint from raw_installs").scalar(Int64.self) == 20)
    }
    @Test("the database restarted during ingest: the run retries the step and completes without loss")
    func databaseRestartedDuringRun() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-run-cluster")
        let cluster = EmbeddedCluster(directory: directory)
        defer {
            _ = try? cluster.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        _ = try cluster.start()
        let fixture = try BatchFixture(settings: ConnectionSettings(conninfo: cluster.conninfo, searchPath: ["funnel", "public"]))
        defer { fixture.remove() }
        let generated = try Generator.run(GeneratorOptions(outputDirectory: fixture.inbox.path, users: 4_000, days: 20, seed: 9))
        try FileManager.default.removeItem(atPath: generated.truthPath)
        let old = Date().addingTimeInterval(-60)
        for file in generated.files {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: fixture.inbox.appending(path: file.name).path)
        }
        let process = try FunnelExecutable.start(fixture.arguments(["--lease", "5", "--workers", "1", "--retry-for", "60"]))
        var caught = false
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, process.isRunning, !caught {
            if let watcher = try? fixture.settings.connect(),
               (try? watcher.query("select count(*)::bigint from ingest_files where status = 'loading'").scalar(Int64.self)) ?? 0 > 0 {
                caught = true
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        #expect(caught, "the run was caught during ingest")
        _ = try cluster.stop()
        Thread.sleep(forTimeInterval: 1)
        _ = try cluster.start()
        process.waitUntilExit()
        let stderr = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("transient database error, retrying"))
        let connection = try fixture.settings.connect()
        for file in generated.files {
            let counts = try connection.query("""
                select rows_loaded + duplicates + rejected from ingest_files where path = $1 and status = 'loaded'
                """, [fixture.inbox.appending(path: file.name).path]).map { try $0.decode(Int64.self, at: 0) }
            #expect(counts == [Int64(file.rows)], "\(file.name) loaded once, every row accounted for")
        }
        #expect(FileManager.default.fileExists(atPath: fixture.reports.appending(path: "latest/run.json").path))
    }
}
