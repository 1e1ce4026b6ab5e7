import Foundation
import FunnelCompute
import FunnelCore
import FunnelPipeline
import FunnelGenerate
import FunnelIngest
import FunnelSQL
import Logging
import PostgresClient
import Testing
import TestSupport

/// A daily run on realistic data: generated files split at their last day, the history loaded and
/// computed, then the last day loaded and computed incrementally (as `funnel run` does it). Every
/// metric and friction table must then equal a full rebuild, and the day must have been folded in,
/// not rebuilt: generated days carry reinstalls from every old cohort.
@Suite("A generated day folded in equals a full rebuild")
struct DailyFoldTests {
    /// Friction tables in a stable order, without timestamps.
    static let frictionTables = [
        "(select app_id, user_id, session_id, screen, friction_type, occurred_at, severity, input_mode, orientation, platform from fct_friction_episodes)",
        """
        (select app_id, screen, friction_type, users_hit, users_not_hit, dropped_hit, dropped_not_hit, d1_users_hit,
                d1_users_not_hit, round(p_value::numeric, 12), flagged, rank from fct_friction_impact)
        """,
        "(select app_id, screen, friction_type, dimension, value, users_hit, dropped_hit from fct_friction_breakdown)",
        "int_friction_reached", "int_friction_screens", "int_friction_outcomes", "int_friction_apps",
        "int_friction_screen_counts", "int_friction_hits",
    ]

    @Test("metrics and friction after one folded day equal a full rebuild")
    func foldedDayEqualsFullRebuild() throws {
        let generated = try FrictionFixtures.generate(users: 2500, seed: 3)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let history = generated.directory.appending(path: "history")
        let lastDay = generated.directory.appending(path: "day")
        let dayFiles = try Self.split(generated.directory, cutoff: "2024-05-14", history: history, lastDay: lastDay)
        #expect(dayFiles.contains { $0.hasPrefix("installs") }, "the last day has installs: \(dayFiles)")

        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        // A user-defined funnel and a k-factor window the 14 days mature, so that every table
        // compared below has rows.
        var configuration = FunnelConfiguration()
        configuration.funnels = [FunnelDefinition(name: "buyers", steps: ["open", "purchase"], order: .ordered, windowDays: 7)]
        configuration.kFactorWindowDays = 3
        let job = ComputeJob(configuration: configuration)
        try GeneratedDataLoader.load(directory: history.path, settings: settings)
        _ = try job.run(connection, options: ComputeOptions(full: true))

        let reinstallersBefore = try connection.query("select count(*) from int_user_facts where installs > 1").scalar(Int.self)
        // As `funnel run` does it (DailyLanes): the event files first; then the metrics beside
        // the telemetry's load and friction, on a second connection.
        let telemetry = generated.directory.appending(path: "telemetry")
        try FileManager.default.createDirectory(at: telemetry, withIntermediateDirectories: true)
        for name in dayFiles where name.hasPrefix("ux") {
            try FileManager.default.moveItem(at: lastDay.appending(path: name), to: telemetry.appending(path: name))
        }
        try GeneratedDataLoader.load(directory: lastDay.path, settings: settings)
        let daily = try #require(try ComputeLanes(job: job).run(connection, options: ComputeOptions(), alongside: settings, beforeFriction: {
            try GeneratedDataLoader.load(directory: telemetry.path, settings: settings)
        }))
        #expect(daily.compute.mode == "incremental")
        #expect(daily.compute.failedChecks.isEmpty)
        // The new installs' cohort and no other: the day's reinstalls of older users are folded.
        #expect(daily.compute.cohortDaysRebuilt <= 2, "cohort days rebuilt: \(daily.compute.cohortDaysRebuilt)")
        let friction = try #require(daily.friction)
        #expect(friction.filesFolded == dayFiles.count, "friction starts once every file is in")
        let telemetryFiles = try connection.query("select file_id from ingest_files where kind = 'ux' and path like $1 || '/%'",
                                                  [telemetry.path]).rows.map { try $0.decode(Int64.self, at: 0) }
        #expect(telemetryFiles.count == dayFiles.filter { $0.hasPrefix("ux") }.count && !telemetryFiles.isEmpty)
        try connection.query(SQLCatalog.text("bookkeeping/metrics/telemetry_folded.sql"), [telemetryFiles])
        #expect(try !connection.query(SQLCatalog.text("bookkeeping/metrics/pending_work.sql"),
                                      [PostgresDate?.none, PostgresDate?.none])[0].decode(Bool.self, at: 0),
                "nothing waits once friction has read the telemetry")
        let reinstallersAfter = try connection.query("select count(*) from int_user_facts where installs > 1").scalar(Int.self)
        #expect(reinstallersAfter > reinstallersBefore, "the day's reinstalls are counted")

        var folded: [String: [String]] = [:]
        let tables = LoadedFilesIncrementalTests.marts + Self.frictionTables
        for table in tables {
            folded[table] = try ComputeFixture.snapshot(connection, table)
            #expect(folded[table]?.isEmpty == false, "\(table) is empty, so comparing it would prove nothing")
        }

        _ = try job.run(connection, options: ComputeOptions(full: true))
        for table in tables {
            #expect(try ComputeFixture.snapshot(connection, table) == folded[table], "\(table) differs from a full rebuild")
        }
    }

    @Test("compute --full with friction beside the metrics equals the two in turn, and keeps the reached screens' key")
    func fullRebuildSideBySideEqualsInTurn() throws {
        let generated = try FrictionFixtures.generate(users: 1200, seed: 5)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        let job = ComputeJob(configuration: FunnelConfiguration())
        let tables = LoadedFilesIncrementalTests.marts + Self.frictionTables
        let key = """
            select pg_get_constraintdef(oid) from pg_constraint
            where conrelid = 'int_friction_reached'::regclass and contype = 'p'
            """

        let inTurn = try #require(try job.run(connection, options: ComputeOptions(full: true)))
        #expect(inTurn.compute.mode == "full")
        var expected: [String: [String]] = [:]
        for table in tables {
            expected[table] = try ComputeFixture.snapshot(connection, table)
        }
        #expect(expected["int_user_facts"]?.isEmpty == false && expected["int_friction_reached"]?.isEmpty == false,
                "the compared tables have rows")

        // A second full rebuild, side by side this time: over every derived table already filled.
        let sideBySide = try #require(try ComputeLanes(job: job).run(connection, options: ComputeOptions(full: true), alongside: settings))
        #expect(sideBySide.compute.mode == "full")
        let friction = try #require(sideBySide.friction, "a full job rebuilds friction on the second connection")
        #expect(friction.sessionsScanned == inTurn.friction?.sessionsScanned && friction.sessionsScanned > 0)
        #expect(sideBySide.compute.failedChecks.isEmpty)
        for table in tables {
            #expect(try ComputeFixture.snapshot(connection, table) == expected[table], "\(table) differs from the full rebuild in turn")
        }
        // The rebuild fills the reached screens without their key and builds it again afterwards.
        #expect(try connection.query(key).scalar(String.self) == "PRIMARY KEY (app_id, user_id, screen)")
        #expect(try ComputeLedger(connection).computedUnder(lane: .friction)?.fingerprint == FunnelConfiguration().fingerprint)
    }

    @Test("a friction run stopped after compute is caught up by the next compute, even with nothing new")
    func frictionCatchesUpWithUnreadFiles() throws {
        let generated = try FrictionFixtures.generate(users: 400, seed: 3)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        // Compute alone, as if the process died before friction ran.
        _ = try ComputeEngine(configuration: FunnelConfiguration()).run(connection, options: ComputeOptions())
        #expect(try connection.query("select count(*) from friction_files").scalar(Int.self) == 0)

        let next = try #require(try ComputeJob(configuration: FunnelConfiguration()).run(connection, options: ComputeOptions()))
        #expect(next.compute.usersRebuilt == 0)
        let friction = try #require(next.friction, "friction reads the files it missed")
        #expect(friction.filesFolded > 0)
        #expect(friction.sessionsScanned > 0, "the sessions of the unread telemetry are scanned")
        #expect(try connection.query("select count(*) from int_friction_outcomes").scalar(Int.self) > 0)
        #expect(try connection.query("select count(*) from fct_friction_impact").scalar(Int.self) > 0)
        let again = try #require(try ComputeJob(configuration: FunnelConfiguration()).run(connection, options: ComputeOptions()))
        #expect(again.friction == nil, "nothing left to read")
    }

    /// The work `beforeFriction` stands for failed (the telemetry's load in `funnel run`).
    struct LaneFailed: Error {}

    @Test("work before friction that fails fails the job after the metrics commit, and friction waits for the next job")
    func failedWorkBeforeFrictionLeavesFrictionForLater() throws {
        let generated = try FrictionFixtures.generate(users: 300, seed: 7)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        let job = ComputeJob(configuration: FunnelConfiguration())
        #expect(throws: LaneFailed.self) {
            try ComputeLanes(job: job).run(connection, options: ComputeOptions(), alongside: settings, beforeFriction: { throw LaneFailed() })
        }
        #expect(try connection.query("select count(*) from compute_runs").scalar(Int.self) == 1, "the metrics committed")
        #expect(try connection.query("select count(*) from int_user_facts").scalar(Int.self) > 0)
        #expect(try connection.query("select count(*) from friction_files").scalar(Int.self) == 0, "friction did not run")
        #expect(try ComputeLedger(connection).computedUnder(lane: .metrics)?.fingerprint == FunnelConfiguration().fingerprint)
        #expect(try ComputeLedger(connection).computedUnder(lane: .friction) == nil, "friction claims no configuration")
        let next = try #require(try ComputeLanes(job: job).run(connection, options: ComputeOptions(), alongside: settings))
        #expect(try #require(next.friction).filesFolded > 0, "the next job's friction reads the files")
    }

    /// The metrics' transaction held a lock on raw_ux while the work before friction waited.
    struct MetricsHeldTheTelemetryTable: Error {}

    @Test("beside friction the metrics read nothing of raw_ux: the telemetry's load, which may create a month's partition, never waits on them")
    func metricsLeaveTheTelemetryTableFree() throws {
        let generated = try FrictionFixtures.generate(users: 200, seed: 11)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        // What creating a partition takes: raw_ux itself, exclusively. Held until the metrics
        // commit; had they read raw_ux they would fail the lock at once or wait for it until the
        // deadline.
        let result = try ComputeLanes(job: ComputeJob(configuration: FunnelConfiguration())).run(
            connection, options: ComputeOptions(), alongside: settings, beforeFriction: {
                let holder = try settings.connect()
                try holder.transaction { holder in
                    do {
                        try holder.execute("lock table only raw_ux in access exclusive mode nowait")
                    } catch {
                        throw MetricsHeldTheTelemetryTable()
                    }
                    let deadline = Date().addingTimeInterval(20)
                    while try holder.query("select count(*) from compute_runs").scalar(Int.self) == 0 {
                        guard Date() < deadline else { throw MetricsHeldTheTelemetryTable() }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
            })
        let job = try #require(result)
        #expect(job.compute.frictionScope == nil, "friction beside the metrics finds its own scope")
        #expect(try #require(job.friction).filesFolded > 0)
    }

    @Test("friction analyzes the raw partitions a fresh load left without statistics before folding them in")
    func frictionAnalyzesFreshPartitions() throws {
        let generated = try FrictionFixtures.generate(users: 300, seed: 5)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        // The real loader, without the analyze GeneratedDataLoader adds: as `funnel demo` runs.
        let files = try InputDiscovery.expand([generated.directory.path])
        let reports = try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 1)
            .run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: Logger(label: "test.ingest"))
        #expect(reports.allSatisfy { $0.status == .loaded })
        let unanalyzed = """
            select count(*) from pg_stat_user_tables
            where relname ~ '^raw_(ux|steps|installs|opens)_[0-9]{4}_[0-9]{2}$' and last_analyze is null and last_autoanalyze is null
            """
        #expect(try connection.query(unanalyzed).scalar(Int.self) > 0, "a fresh load leaves partitions unanalyzed")
        _ = try ComputeJob(configuration: FunnelConfiguration()).run(connection, options: ComputeOptions())
        #expect(try connection.query(unanalyzed).scalar(Int.self) == 0)
    }

    /// Splits every generated CSV by its kind's time field; returns the names of the last day's files.
    static func split(_ directory: URL, cutoff: String, history: URL, lastDay: URL) throws -> [String] {
        for folder in [history, lastDay] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var dayFiles: [String] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".csv") }
        for name in names.sorted() {
            let kindName = String(name.prefix { $0 != "-" && $0 != "." })
            let kind = try #require(EventKind(rawValue: kindName), "\(name) names a kind")
            let splitter = try #require(DaySplitter(kind: kind, cutoffDate: cutoff))
            let before = history.appending(path: name).path
            let onOrAfter = lastDay.appending(path: name).path
            let counts = try splitter.split(directory.appending(path: name).path, before: before, onOrAfter: onOrAfter)
            if counts.before == 0 { try FileManager.default.removeItem(atPath: before) }
            if counts.onOrAfter == 0 { try FileManager.default.removeItem(atPath: onOrAfter) } else { dayFiles.append(name) }
        }
        return dayFiles
    }
}
