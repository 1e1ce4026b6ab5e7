import Foundation
import FunnelBench
import FunnelCore
import FunnelGenerate
@testable import FunnelIngest
import IngestFixtures
import Logging
import PostgresClient
import Testing
import TestSupport

/// The bulk merge (FileLoader's bulk path) stores exactly what the daily merge stores, and a
/// `funnel ingest` killed anywhere in a bulk import leaves, after a rerun, what a clean import
/// leaves.
@Suite("Bulk merge", .serialized)
struct BulkMergeTests {
    /// Every raw table, key table and the rejects, as one digest per table: each row's columns as
    /// JSON with file_id replaced by its file's name (file ids depend on queue order, the names
    /// do not), sorted. Equal digests mean equal tables.
    static func digests(_ db: LoaderFixture) throws -> [String: String] {
        var result: [String: String] = [:]
        for kind in EventKind.allCases {
            result[kind.rawTable] = try db.rows("""
                select md5(coalesce(string_agg(row_text, E'\\n' order by row_text), '')) || ' ' || count(*)
                from (select ((to_jsonb(r) - 'file_id') || jsonb_build_object('file', regexp_replace(f.path, '^.*/', '')))::text as row_text
                      from \(kind.rawTable) r join ingest_files f using (file_id)) t
                """)[0][0]
            if let keyTable = kind.keyTable {
                result[keyTable] = try db.rows("""
                    select md5(coalesce(string_agg(app_id || ' ' || event_id, E'\\n' order by app_id, event_id), '')) || ' ' || count(*)
                    from \(keyTable)
                    """)[0][0]
            }
        }
        result["ingest_rejects"] = try db.rows("""
            select md5(coalesce(string_agg(row_text, E'\\n' order by row_text), '')) || ' ' || count(*)
            from (select concat_ws(' ', regexp_replace(path, '^.*/', ''), line, kind, raw, reason) as row_text from ingest_rejects) t
            """)[0][0]
        result["ingest_files"] = try db.rows("""
            select string_agg(concat_ws(' ', regexp_replace(path, '^.*/', ''), status, rows_read, rows_loaded, duplicates, rejected),
                              E'\\n' order by regexp_replace(path, '^.*/', ''))
            from ingest_files
            """)[0][0]
        return result
    }

    /// A generated history with dirty rows (rejects), duplicated events, late events and restated
    /// spend, over two months, plus custom events; the files' paths.
    static func history(_ db: LoaderFixture, users: Int = 1_500, days: Int = 45, seed: UInt64 = 7,
                        start: String = "2024-05-10", events: Int = 20_000) throws -> [String] {
        let directory = db.scratch.directory.appendingPathComponent("history-\(seed)").path
        let generated = try Generator.run(GeneratorOptions(outputDirectory: directory, users: users, days: days, seed: seed,
                                                           dirty: true, startDate: start))
        var paths = generated.files.map { directory + "/" + $0.name }
        let eventsPath = directory + "/events-\(seed).csv"
        _ = try EventStreamGenerator(events: events, seed: seed).writeCSV(to: eventsPath)
        paths.append(eventsPath)
        return paths
    }

    func ingest(_ db: LoaderFixture, _ paths: [String], path: MergePath, workers: Int = 1) throws -> [IngestRun.FileReport] {
        let reports = try IngestRun(settings: db.settings, kind: nil, assumeTimeZone: nil, workers: workers,
                                    workerOptions: WorkerOptions(pollSeconds: 0.05, mergePath: path))
            .run(files: paths, stop: StopFlag(), progress: IngestProgress(), logger: LoaderFixture.quietLogger)
        #expect(reports.allSatisfy { $0.status == .loaded }, "\(reports.filter { $0.status != .loaded })")
        return reports
    }

    /// A day's opens (o1, o2 in May) loaded first by the daily merge, so May is stored.
    func loadFirstOpens(_ db: LoaderFixture) throws {
        let first = try db.file("opens-first.csv", """
            event_id,app_id,user_id,opened_at,session_seconds
            o1,app,u1,2024-05-03T10:00:00Z,10
            o2,app,u2,2024-05-03T11:00:00Z,20

            """)
        _ = try ingest(db, [first], path: .daily, workers: 1)
    }

    @Test("hand-made files: the bulk merge keeps each event's first copy, skips what is stored, rejects with line and reason")
    func handMade() throws {
        let db = try LoaderFixture()
        // A day's opens loaded first (daily merge) fills May; the big file then brings May
        // (through the raw table's indexes) and June (a new partition, attached).
        try loadFirstOpens(db)
        let second = try db.file("opens-second.csv", """
            event_id,app_id,user_id,opened_at,session_seconds
            o2,app,u2,2024-05-03T11:00:00Z,99
            o3,app,u3,2024-05-20T09:00:00Z,30
            o4,app,u4,2024-06-02T09:00:00Z,40
            o4,app,u4,2024-06-02T09:00:00Z,41
            o5,app,u5,not-a-time,50
            o6,other,u6,2024-06-30T23:59:59Z,60
            o4,other,u4,2024-06-01T00:00:00Z,70

            """)
        let reports = try ingest(db, [second], path: .bulk, workers: 1)
        #expect(reports[0].counts.rowsLoaded == 4)
        #expect(reports[0].counts.duplicates == 2)
        #expect(reports[0].counts.rejected == 1)
        #expect(try db.rows("select app_id, event_id, session_seconds::text from raw_opens order by app_id, event_id")
                == [["app", "o1", "10"], ["app", "o2", "20"], ["app", "o3", "30"], ["app", "o4", "40"],
                    ["other", "o4", "70"], ["other", "o6", "60"]])
        #expect(try db.rows("select app_id, event_id from raw_opens_keys order by 1, 2")
                == [["app", "o1"], ["app", "o2"], ["app", "o3"], ["app", "o4"], ["other", "o4"], ["other", "o6"]])
        let rejects = try db.rows("select line::text, reason from ingest_rejects")
        #expect(rejects.map { $0[0] } == ["6"], "\(rejects)")
        // June was attached with every index of the raw table; no load table is left.
        #expect(try db.count("""
            select count(*) from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = 'raw_opens'::regclass and c.relname = 'raw_opens_2024_06'
            """) == 1)
        #expect(try db.count("select count(*) from pg_indexes where tablename = 'raw_opens_2024_06'")
                == (try db.count("select count(*) from pg_indexes where tablename = 'raw_opens_2024_05'")))
        #expect(try db.count("select count(*) from pg_class where relname like 'bulk_load_%'") == 0)
        #expect(try db.count("select count(*) from pg_constraint where conname = 'raw_opens_keys_pkey'") == 1)
    }

    /// One loading way of the test below: two COPY streams or the session's staging, the
    /// repeated-key filter sized from the file or of one bit (every row after the first a
    /// suspect, so events whose first copy is a suspect too), and the most suspects' text the reader keeps for the
    /// staging's merge (0: it gives up and the merge groups every staged key).
    struct LoadingWay: Sendable, CustomTestStringConvertible {
        var split: Bool
        var filterBits: Int?
        var maximumSuspectBytes = 8 << 20
        /// A split load's rows as binary COPY rows (else COPY text).
        var binary = true
        var testDescription: String {
            "split \(split)\(split ? (binary ? " in binary" : " as text") : ""), filter \(filterBits.map { "\($0) bits" } ?? "sized"), suspects up to \(maximumSuspectBytes) bytes"
        }
    }

    @Test("two COPY streams or one: each event's first copy in the file across the batches, stored keys skipped, rejects with line, no load table left",
          arguments: [LoadingWay(split: true, filterBits: nil), LoadingWay(split: true, filterBits: 1),
                      LoadingWay(split: true, filterBits: nil, binary: false), LoadingWay(split: true, filterBits: 1, binary: false),
                      LoadingWay(split: false, filterBits: nil), LoadingWay(split: false, filterBits: 1),
                      LoadingWay(split: false, filterBits: nil, maximumSuspectBytes: 0)])
    func loadingWays(way: LoadingWay) throws {
        let db = try LoaderFixture()
        try loadFirstOpens(db)
        // One row per batch, so batches alternate between the two streams: o4's first copy (40,
        // row 4) goes by the second stream and its later copy (41, row 5) by the loader's own,
        // which may COPY it first; o8's copies (80 then 81) the other way round.
        let text = """
            event_id,app_id,user_id,opened_at,session_seconds
            o2,app,u2,2024-05-03T11:00:00Z,99
            o3,app,u3,2024-05-20T09:00:00Z,30
            o7,app,u7,2024-06-05T09:00:00Z,70
            o4,app,u4,2024-06-02T09:00:00Z,40
            o4,app,u4,2024-06-02T09:00:00Z,41
            o8,app,u8,2024-07-01T00:00:00Z,80
            o5,app,u5,not-a-time,50
            o8,app,u8,2024-07-01T00:00:00Z,81

            """
        let second = try db.file("opens-second.csv", text)
        let queue = IngestQueue(connection: db.connection)
        _ = try queue.enqueue(path: second, kind: .opens, assumeTimeZone: nil, sha256: "loading-ways-test",
                              sizeBytes: Int64(text.utf8.count))
        let claimed = try #require(try queue.claim(workerID: "split-test", leaseSeconds: 60))
        let loader = try FileLoader(connection: db.connection, workerID: "split-test", leaseSeconds: 60)
        loader.batchRows = 1
        loader.splitCopyBytes = way.split ? 0 : 1 << 40
        loader.mergePath = .bulk
        loader.repeatedKeyFilterBits = way.filterBits
        loader.maximumSuspectBytes = way.maximumSuspectBytes
        loader.splitCopyInBinary = way.binary
        let settings = db.settings
        loader.connectSecondStream = { try settings.connect(logger: LoaderFixture.quietLogger) }
        let counts = try loader.load(claimed)
        #expect(counts.rowsLoaded == 4)
        #expect(counts.duplicates == 3)
        #expect(counts.rejected == 1)
        #expect(try db.rows("select event_id, session_seconds::text from raw_opens order by event_id")
                == [["o1", "10"], ["o2", "20"], ["o3", "30"], ["o4", "40"], ["o7", "70"], ["o8", "80"]])
        #expect(try db.rows("select event_id from raw_opens_keys order by 1") == [["o1"], ["o2"], ["o3"], ["o4"], ["o7"], ["o8"]])
        #expect(try db.rows("select line::text from ingest_rejects") == [["8"]])
        #expect(try db.count("select count(*) from pg_class where relname like 'bulk_stage_%' or relname like 'bulk_load_%'") == 0)
        #expect(try db.count("select count(*) from pg_indexes where tablename = 'raw_opens_2024_07'")
                == (try db.count("select count(*) from pg_indexes where tablename = 'raw_opens_2024_05'")))
        #expect(try db.count("select count(*) from pg_constraint where conname = '\(BulkMerge.boundsCheck)'") == 0,
                "the new months' bounds checks are dropped once they are attached")
    }

    @Test("device ids by two COPY streams or one: a device's rows move to the user a row of the file ties it to, a later copy ties nothing",
          arguments: [LoadingWay(split: true, filterBits: nil), LoadingWay(split: true, filterBits: 1),
                      LoadingWay(split: true, filterBits: nil, binary: false),
                      LoadingWay(split: false, filterBits: nil), LoadingWay(split: false, filterBits: 1)])
    func deviceRows(way: LoadingWay) throws {
        let db = try LoaderFixture()
        let first = try db.file("opens-first.csv", """
            event_id,app_id,user_id,opened_at,session_seconds,device_id
            o1,app,,2024-05-03T10:00:00Z,10,D1
            o2,app,u2,2024-05-03T11:00:00Z,20,

            """)
        _ = try ingest(db, [first], path: .daily, workers: 1)
        #expect(try db.rows("select event_id, user_id from raw_opens order by 1") == [["o1", "device:D1"], ["o2", "u2"]])
        let text = """
            event_id,app_id,user_id,opened_at,session_seconds,device_id
            o3,app,,2024-05-20T09:00:00Z,30,D1
            o4,app,u1,2024-06-02T09:00:00Z,40,D1
            o5,app,,2024-07-01T00:00:00Z,50,D2
            o6,app,,2024-06-05T09:00:00Z,60,
            o4,app,u9,2024-06-02T09:00:00Z,41,D9

            """
        let second = try db.file("opens-second.csv", text)
        let queue = IngestQueue(connection: db.connection)
        _ = try queue.enqueue(path: second, kind: .opens, assumeTimeZone: nil, sha256: "device-rows-test",
                              sizeBytes: Int64(text.utf8.count))
        let claimed = try #require(try queue.claim(workerID: "split-test", leaseSeconds: 60))
        let loader = try FileLoader(connection: db.connection, workerID: "split-test", leaseSeconds: 60)
        loader.batchRows = 1
        loader.splitCopyBytes = way.split ? 0 : 1 << 40
        loader.mergePath = .bulk
        loader.repeatedKeyFilterBits = way.filterBits
        loader.splitCopyInBinary = way.binary
        let settings = db.settings
        loader.connectSecondStream = { try settings.connect(logger: LoaderFixture.quietLogger) }
        let counts = try loader.load(claimed)
        #expect(counts.rowsLoaded == 3)
        #expect(counts.rejected == 1)
        #expect(try db.rows("select event_id, user_id, coalesce(device_id, ''), session_seconds::text, file_id::text from raw_opens order by 1") == [
            ["o1", "u1", "D1", "10", "1"], ["o2", "u2", "", "20", "1"], ["o3", "u1", "D1", "30", "2"], ["o4", "u1", "D1", "40", "2"],
            ["o5", "device:D2", "D2", "50", "2"],
        ])
        #expect(try db.rows("select device_id, user_id, file_id::text from identity_links") == [["D1", "u1", "2"]])
        #expect(try db.rows("select line::text from ingest_rejects") == [["5"]])
        #expect(try db.rows("select event_id from raw_opens_keys order by 1") == [["o1"], ["o2"], ["o3"], ["o4"], ["o5"]])
    }

    @Test("workers loading a device's rows and its tie at once: no stored row is left with a tied device's person id")
    func deviceRowsAndTiesInParallel() throws {
        let db = try LoaderFixture()
        var paths: [String] = []
        // Each device's rows in one file and its tie in another, the files mixed so that the
        // workers merge them at once in either order.
        for device in 0..<8 {
            var rows = ["event_id,app_id,user_id,opened_at,device_id"]
            for event in 0..<50 { rows.append("d\(device)-\(event),app,,2024-05-03T10:\(String(format: "%02d", event)):00Z,D\(device)") }
            paths.append(try db.file("opens-device-\(device).csv", rows.joined(separator: "\n") + "\n"))
            paths.append(try db.file("opens-tie-\(device).csv", """
                event_id,app_id,user_id,opened_at,device_id
                t\(device),app,u\(device),2024-05-04T10:00:00Z,D\(device)

                """))
        }
        _ = try ingest(db, paths.enumerated().sorted { ($0.offset % 4, $0.offset) < ($1.offset % 4, $1.offset) }.map(\.element),
                       path: .daily, workers: 4)
        #expect(try db.count("select count(*) from identity_links") == 8)
        #expect(try db.count("select count(*) from raw_opens where user_id like 'device:%'") == 0)
        #expect(try db.count("select count(*) from raw_opens r join identity_links l on l.device_id = r.device_id and l.user_id = r.user_id") == 8 * 51)
    }

    @Test("a new month's bounds check rejects rows outside the month and spares its attach the read that proves the bounds")
    func boundsCheckImpliesPartition() throws {
        let db = try LoaderFixture()
        let notices = NoticeLog()
        let connection = try db.settings.connect(logger: Logger(label: "bounds-check") { _ in notices })
        let june = Int32(2024 * 12 + 5)
        let bounds = BulkMerge.bounds(june)
        try connection.execute("create table month_test (like raw_opens including defaults)")
        try connection.execute(BulkMerge.addBoundsCheck("month_test", kind: .opens, bounds: bounds))
        try connection.execute("insert into month_test (event_id, app_id, user_id, opened_at, file_id) values ('o1', 'app', 'u1', '2024-06-30 23:59:59.999999+00', 1)")
        for outside in ["2024-07-01 00:00:00+00", "2024-05-31 23:59:59.999999+00"] {
            #expect(throws: PostgresError.self) {
                try connection.execute("insert into month_test (event_id, app_id, user_id, opened_at, file_id) values ('o2', 'app', 'u2', '\(outside)', 1)")
            }
        }
        try connection.execute("set client_min_messages = debug1")
        try connection.execute("alter table raw_opens attach partition month_test for values from ('\(bounds.from)') to ('\(bounds.to)')")
        try connection.execute("reset client_min_messages")
        #expect(notices.messages.contains { $0.contains("partition constraint for table \"month_test\" is implied by existing constraints") },
                "\(notices.messages)")
    }

    @Test("an ingest drops the load tables stopped split loads left, but not one whose file a worker is loading")
    func leftoverLoadTables() throws {
        let db = try LoaderFixture()
        // A file being loaded: claimed, with its load table made.
        let busyText = "event_id,app_id,user_id,opened_at,session_seconds\no9,app,u9,2024-05-03T10:00:00Z,10\n"
        let busy = try db.file("opens-busy.csv", busyText)
        let queue = IngestQueue(connection: db.connection)
        _ = try queue.enqueue(path: busy, kind: .opens, assumeTimeZone: nil, sha256: "busy-file", sizeBytes: Int64(busyText.utf8.count))
        let claimed = try #require(try queue.claim(workerID: "busy-worker", leaseSeconds: 600))
        for fileID in [claimed.fileID, 424_242] {
            try db.connection.execute("""
                create table bulk_load_opens_\(fileID) (like raw_opens including defaults) partition by range (opened_at);
                create table bulk_load_opens_\(fileID)_2024_05 partition of bulk_load_opens_\(fileID)
                    for values from ('2024-05-01 00:00:00+00') to ('2024-06-01 00:00:00+00')
                """)
        }
        let other = try db.file("opens-other.csv", "event_id,app_id,user_id,opened_at,session_seconds\no1,app,u1,2024-05-03T10:00:00Z,10\n")
        _ = try ingest(db, [other], path: .bulk)
        #expect(try db.rows("select relname from pg_class where relname like 'bulk_load_%' order by 1")
                == [["bulk_load_opens_\(claimed.fileID)"], ["bulk_load_opens_\(claimed.fileID)_2024_05"]])
    }

    @Test("a generated history: the bulk and the daily merge store identical raw tables, keys and rejects, first import and then an overlapping one")
    func bulkEqualsDaily() throws {
        let bulk = try LoaderFixture()
        let daily = try LoaderFixture()
        let firstBulk = try Self.history(bulk)
        let firstDaily = try Self.history(daily)
        _ = try ingest(bulk, firstBulk, path: .bulk)
        _ = try ingest(daily, firstDaily, path: .daily)
        #expect(try Self.digests(bulk) == Self.digests(daily))
        // A second history overlapping the first's last month and opening a new one, sent with a
        // copy of part of the first's opens (every event already stored).
        for db in [bulk, daily] {
            let opens = try String(contentsOfFile: (db === bulk ? firstBulk : firstDaily).first { $0.contains("/opens-") }!, encoding: .utf8)
            _ = try db.file("opens-again.csv", opens.split(separator: "\n", omittingEmptySubsequences: false).prefix(2_000).joined(separator: "\n"))
        }
        let secondBulk = try Self.history(bulk, users: 800, days: 40, seed: 8, start: "2024-06-15", events: 5_000)
            + [bulk.scratch.directory.appendingPathComponent("opens-again.csv").path]
        let secondDaily = try Self.history(daily, users: 800, days: 40, seed: 8, start: "2024-06-15", events: 5_000)
            + [daily.scratch.directory.appendingPathComponent("opens-again.csv").path]
        let reportsBulk = try ingest(bulk, secondBulk, path: .bulk)
        let reportsDaily = try ingest(daily, secondDaily, path: .daily)
        #expect(reportsBulk.map(\.counts) == reportsDaily.map(\.counts))
        #expect(reportsBulk.last?.counts.rowsLoaded == 0 && (reportsBulk.last?.counts.duplicates ?? 0) > 1_000)
        let digestsBulk = try Self.digests(bulk)
        #expect(digestsBulk == (try Self.digests(daily)))
        #expect(try bulk.count("select count(*) from ingest_rejects") > 0, "the history has dirty rows")
        // The second stream's event ids (1...5000) are the first's: every one is a duplicate.
        #expect(try bulk.count("select count(*) from raw_events") == 20_000)
    }

    @Test("kill -9 at 20 random points of bulk imports, then a rerun: every raw table equals a clean import's")
    func killAnywhereThenRerun() throws {
        let clean = try LoaderFixture()
        let cleanPaths = try Self.history(clean)
        let started = Date()
        let cleanRun = try clean.run(["ingest"] + cleanPaths + ["--bulk-rows", "1", "--lease", "1", "--workers", "1"])
        #expect(cleanRun.status == 0, "\(cleanRun.stderr)")
        let cleanSeconds = Date().timeIntervalSince(started)
        let expected = try Self.digests(clean)
        #expect(try clean.count("select count(*) from raw_ux") > 0)

        // Kills are counted only where they land while the import runs. A run resumed after a
        // kill has less left to load, so each round's next kill falls within what its earlier
        // runs left (the clean import's time less the time they ran); a kill that finds the
        // import done ends the round, and rounds go on until 20 kills landed midway.
        var random = SystemRandomNumberGenerator()
        var killedMidway = 0
        var missed = 0
        var round = 0
        while killedMidway < 20 && round < 14 {
            defer { round += 1 }
            let db = try LoaderFixture()
            let paths = try Self.history(db)
            // Odd rounds load every event file by two COPY streams (split load).
            let split = round % 2 == 1 ? ["--split-copy-mb", "0"] : []
            var ran = 0.0
            for _ in 0..<3 {
                let process = try db.start(["ingest"] + paths + ["--bulk-rows", "1", "--lease", "1", "--workers", "1"] + split)
                let wait = Double.random(in: 0.05...max(0.1, (cleanSeconds - ran) * 0.7), using: &random)
                Thread.sleep(forTimeInterval: wait)
                let midway = process.isRunning
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                ran += wait
                if midway { killedMidway += 1 } else { missed += 1 }
                // As a rerun after a crash finds it: the killed run's server sessions gone (one
                // still running a statement ends when it next talks to the dead client) and its
                // lease expired, so files are claimed in queue order as in the clean import.
                let gone = try db.wait(seconds: 120, every: 0.05) {
                    try db.count("select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()") == 0
                }
                #expect(gone, "round \(round): the killed run's sessions did not end")
                Thread.sleep(forTimeInterval: 1.1)
                if !midway || killedMidway >= 20 { break }
            }
            let rerun = try db.run(["ingest"] + paths + ["--bulk-rows", "1", "--lease", "1", "--workers", "1"] + split)
            #expect(rerun.status == 0, "round \(round): \(rerun.stderr)")
            let digests = try Self.digests(db)
            for (table, digest) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(digests[table] == digest, "round \(round): \(table) differs from the clean import's")
            }
            #expect(try db.count("select count(*) from pg_class where relname ~ '^bulk_(load|stage)_'") == 0)
            // Every month has the raw table's indexes.
            #expect(try db.count("""
                select count(*) from pg_inherits i
                where i.inhparent::regclass::text like 'raw\\_%'
                  and (select count(*) from pg_index x where x.indrelid = i.inhrelid)
                      <> (select count(*) from pg_index x where x.indrelid = i.inhparent)
                """) == 0, "round \(round)")
        }
        print("bulk import kills: \(killedMidway) landed midway, \(missed) found the import done, in \(round) rounds")
        #expect(killedMidway >= 20, "20 kills should land while an import runs (\(killedMidway) did, \(missed) found it done, in \(round) rounds)")
    }
}
