import Foundation
import FunnelBench
import FunnelCore
import FunnelIngest
import IngestFixtures
import PostgresClient
import TestSupport
import Testing

@Suite("Ingest queue and workers")
struct QueueTests {
    /// Enqueues `paths` directly (as `funnel ingest` does before its workers start).
    func enqueue(_ db: LoaderFixture, _ paths: [String]) throws -> [Int64] {
        let queue = IngestQueue(connection: db.connection)
        return try paths.map { path in
            let (hex, size) = try FileChecksum.file(at: path)
            guard case .queued(let fileID) = try queue.enqueue(path: path, kind: EventKind(fileName: path), assumeTimeZone: nil,
                                                                sha256: hex, sizeBytes: size) else {
                throw CocoaError(.fileWriteUnknown)
            }
            return fileID
        }
    }

    @Test("two workers on one queue load each file exactly once")
    func twoWorkersShareAQueue() throws {
        let db = try LoaderFixture()
        let paths = try (0..<8).map { index in
            try db.file("opens-\(index).csv", "event_id,app_id,user_id,opened_at\n"
                + (0..<50).map { "o\(index)-\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined()
                + "shared,app,u1,2024-05-02T10:00:00Z\n")
        }
        let fileIDs = try enqueue(db, paths)
        let group = DispatchGroup()
        let stop = StopFlag()
        let errors = Locked<[any Error]>([])
        for index in 0..<2 {
            group.enter()
            let settings = db.settings
            Thread {
                defer { group.leave() }
                let worker = IngestWorker(settings: settings, workerID: "test-worker-\(index)",
                                          options: WorkerOptions(leaseSeconds: 30, pollSeconds: 0.05),
                                          stop: stop, logger: LoaderFixture.quietLogger)
                do {
                    try worker.run(among: fileIDs)
                } catch {
                    errors.withLock { $0.append(error) }
                }
            }.start()
        }
        group.wait()
        let workerErrors = errors.withLock { $0 }
        #expect(workerErrors.isEmpty, "workers failed: \(workerErrors)")
        #expect(try db.rows("select distinct status, attempts::text from ingest_files") == [["loaded", "1"]])
        #expect(try db.count("select count(*) from raw_opens") == 8 * 50 + 1)
        #expect(try db.count("select sum(rows_loaded)::bigint from ingest_files") == 8 * 50 + 1)
        #expect(try db.count("select sum(duplicates)::bigint from ingest_files") == 7)
    }

    @Test("one worker claims a run's files in queue order; several take the largest first")
    func claimOrder() throws {
        let db = try LoaderFixture()
        let header = "event_id,app_id,user_id,opened_at\n"
        let paths = try [3, 40, 12].enumerated().map { index, rows in
            try db.file("opens-order-\(index).csv", header
                + (0..<rows).map { "o\(index)-\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined())
        }
        let fileIDs = try enqueue(db, paths)
        let queue = IngestQueue(connection: db.connection)
        let largest = try #require(try queue.claim(workerID: "w", leaseSeconds: 30, among: fileIDs, largestFirst: true))
        #expect(largest.fileID == fileIDs[1])
        let next = try #require(try queue.claim(workerID: "w", leaseSeconds: 30, among: fileIDs, largestFirst: true))
        #expect(next.fileID == fileIDs[2])
        let oldest = try #require(try queue.claim(workerID: "w", leaseSeconds: 30, among: fileIDs))
        #expect(oldest.fileID == fileIDs[0])
        try db.connection.execute("update ingest_files set status = 'queued', claimed_by = null")
        #expect(try queue.claim(workerID: "w", leaseSeconds: 30, among: fileIDs)?.fileID == fileIDs[0],
                "queue order by default")
    }

    @Test("several workers take a file of a kind another worker is loading after the other kinds' files")
    func claimOrderSpreadsKinds() throws {
        let db = try LoaderFixture()
        let opens = "event_id,app_id,user_id,opened_at\n"
        let paths = [
            try db.file("opens-large.csv", opens + (0..<40).map { "a\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined()),
            try db.file("opens-late.csv", opens + (0..<30).map { "b\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined()),
            try db.file("steps-small.csv", "event_id,app_id,user_id,step,occurred_at\ns1,app,u1,welcome,2024-05-01T10:00:00Z\n"),
        ]
        let fileIDs = try enqueue(db, paths)
        let queue = IngestQueue(connection: db.connection)
        #expect(try queue.claim(workerID: "w1", leaseSeconds: 30, among: fileIDs, largestFirst: true)?.fileID == fileIDs[0])
        #expect(try queue.claim(workerID: "w2", leaseSeconds: 30, among: fileIDs, largestFirst: true)?.fileID == fileIDs[2],
                "the steps file before the second opens file, larger but of a kind being loaded")
        #expect(try queue.claim(workerID: "w2", leaseSeconds: 30, among: fileIDs, largestFirst: true)?.fileID == fileIDs[1])
    }

    @Test("a file waits to merge while a split load of its kind is under way, then merges")
    func waitsForSplitLoadOfItsKind() throws {
        let db = try LoaderFixture()
        let path = try db.file("opens-late.csv", "event_id,app_id,user_id,opened_at\n"
            + (0..<3).map { "o\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined())
        // Another worker's split load of opens, as FileLoader holds it from its COPY to its commit.
        let splitLoader = try db.settings.connect()
        try splitLoader.query("select pg_advisory_lock_shared($1)", [FileLoader.splitLoadLock(.opens).value])
        let settings = db.settings
        let finished = Locked<Result<Int, any Error>?>(nil)
        Thread {
            let outcome = Result<Int, any Error> {
                try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 1)
                    .run(files: [path], stop: StopFlag(), progress: IngestProgress(), logger: LoaderFixture.quietLogger)
                    .count
            }
            finished.withLock { $0 = outcome }
        }.start()
        #expect(try db.wait(seconds: 30) { try db.count("select count(*) from ingest_files where status = 'loading'") == 1 })
        #expect(try !db.wait(seconds: 1.5) { try db.count("select count(*) from raw_opens") > 0 },
                "merged while the split load of its kind was under way")
        #expect(finished.withLock { $0 } == nil)
        try splitLoader.query("select pg_advisory_unlock_shared($1)", [FileLoader.splitLoadLock(.opens).value])
        #expect(db.wait(seconds: 60) { finished.withLock { $0 } != nil })
        #expect(try finished.withLock { $0 }?.get() == 1)
        #expect(try db.rows("select status, rows_loaded::text from ingest_files") == [["loaded", "3"]])
        #expect(try db.count("select count(*) from raw_opens") == 3)
    }

    @Test("two runs ingesting the same files at once each report only what they loaded themselves")
    func concurrentRunsReportTheirOwnLoads() throws {
        let db = try LoaderFixture()
        let paths = try (0..<6).map { index in
            try db.file("opens-both-\(index).csv", "event_id,app_id,user_id,opened_at\n"
                + (0..<2_000).map { "b\(index)-\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined())
        }
        let outcomes = Locked<[Result<[IngestRun.FileReport], any Error>]>([])
        let settings = db.settings
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let outcome = Result {
                try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 2,
                              workerOptions: WorkerOptions(leaseSeconds: 30, pollSeconds: 0.02))
                    .run(files: paths, stop: StopFlag(), progress: IngestProgress(), logger: LoaderFixture.quietLogger)
            }
            outcomes.withLock { $0.append(outcome) }
        }
        let runs = try outcomes.withLock { $0 }.map { try $0.get() }
        try #require(runs.count == 2)
        let stored = try db.count("select count(*) from raw_opens")
        #expect(stored == 6 * 2_000)
        let reported = runs.flatMap { $0 }.reduce(0) { $0 + $1.counts.rowsLoaded }
        #expect(reported == stored, "the runs together report \(reported) rows loaded; \(stored) are stored")
        for (index, path) in paths.enumerated() {
            let reports = runs.map { $0[index] }
            #expect(reports.allSatisfy { $0.path == path })
            let loaders = reports.filter { $0.status == .loaded }
            #expect(loaders.count == 1, "\(path): \(reports.map(\.status.rawValue)) in the two runs")
            #expect(loaders.first?.counts.rowsLoaded == 2_000)
            #expect(loaders.first?.loadedBy == .thisRun)
            for other in reports where other.status != .loaded {
                // Loaded by the other run while this one waited, or already loaded when it enqueued.
                #expect(other.status == .loadedElsewhere || other.status == .skipped, "\(path): \(other.status.rawValue)")
                #expect(other.loadedBy == .anotherRun)
                #expect(other.counts == FileLoadCounts())
                let message = other.message ?? ""
                #expect(message.contains("another run (worker ") || message.contains("already loaded"), "\(path): \(message)")
            }
        }
    }

    @Test("a loading file whose lease expired is taken over by another worker")
    func expiredLeaseIsTakenOver() throws {
        let db = try LoaderFixture()
        let path = try db.file("opens-lease.csv", "event_id,app_id,user_id,opened_at\no1,app,u1,2024-05-01T10:00:00Z\n")
        let fileIDs = try enqueue(db, [path])
        let dead = try #require(try IngestQueue(connection: db.connection).claim(workerID: "dead-worker", leaseSeconds: 30))
        #expect(dead.fileID == fileIDs[0])
        let settings = db.settings
        let waiting = Thread {
            let live = IngestWorker(settings: settings, workerID: "live-worker", options: WorkerOptions(leaseSeconds: 30, pollSeconds: 0.05),
                                    stop: StopFlag(), logger: LoaderFixture.quietLogger)
            try? live.run(among: fileIDs)
        }
        waiting.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try db.rows("select status, claimed_by from ingest_files") == [["loading", "dead-worker"]])
        try db.connection.execute("update ingest_files set lease_expires_at = now() - interval '1 second'")
        #expect(db.wait(seconds: 20) { (try? db.rows("select status from ingest_files")) == [["loaded"]] })
        #expect(try db.rows("select attempts::text, rows_loaded::text from ingest_files") == [["2", "1"]])
        #expect(try db.count("select count(*) from raw_opens") == 1)
    }
}

@Suite("funnel ingest and funnel worker processes", .serialized)
struct IngestProcessTests {
    /// A file big enough that loading it takes a while in a debug build.
    func bigInstalls(_ db: LoaderFixture, rows: Int = 300_000) throws -> String {
        let path = db.scratch.directory.appendingPathComponent("installs-big.csv").path
        try ReaderBenchmark.writeSampleInstalls(path: path, rows: rows)
        return path
    }

    @Test("--json prints one document with files and totals")
    func jsonShape() throws {
        let db = try LoaderFixture()
        let directory = db.scratch.directory.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "event_id,app_id,user_id,opened_at\no1,app,u1,2024-05-01T10:00:00Z\no1,app,u1,2024-05-01T10:00:00Z\nbad\n"
            .write(to: directory.appendingPathComponent("opens-1.csv"), atomically: true, encoding: .utf8)
        try "ignored".write(to: directory.appendingPathComponent(".hidden.csv"), atomically: true, encoding: .utf8)
        let result = try db.run(["ingest", directory.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files.first?["path"] as? String == directory.appendingPathComponent("opens-1.csv").path)
        #expect(files.first?["kind"] as? String == "opens")
        #expect(files.first?["status"] as? String == "loaded")
        #expect(files.first?["loaded_by"] as? String == "this run")
        #expect(files.first?["rows_loaded"] as? Int == 1)
        #expect(files.first?["duplicates"] as? Int == 1)
        #expect(files.first?["rejected"] as? Int == 1)
        let totals = try #require(document["totals"] as? [String: Any])
        #expect(totals["rows_loaded"] as? Int == 1 && totals["duplicates"] as? Int == 1 && totals["rejected"] as? Int == 1)

        let missing = try db.run(["ingest", "/nonexistent/path"])
        #expect(missing.status == 2)
        let badKind = try db.run(["ingest", directory.path, "--kind", "nope"])
        #expect(badKind.status == 2)
    }

    @Test("two funnel ingest processes on the same files: the rows each reports loaded add up to the rows stored")
    func twoProcessesSameFiles() throws {
        let db = try LoaderFixture()
        let paths = try (0..<4).map { index in
            try db.file("opens-proc-\(index).csv", "event_id,app_id,user_id,opened_at\n"
                + (0..<5_000).map { "p\(index)-\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined())
        }
        let processes = try (0..<2).map { _ in try db.start(["ingest"] + paths + ["--json"]) }
        var documents: [[String: Any]] = []
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(db.stderr(of: process))")
            let stdout = try String(contentsOf: try #require(db.stdoutURL(of: process)), encoding: .utf8)
            documents.append(try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]))
        }
        let stored = try db.count("select count(*) from raw_opens")
        #expect(stored == 4 * 5_000)
        let totals = documents.compactMap { ($0["totals"] as? [String: Any])?["rows_loaded"] as? Int }
        #expect(totals.reduce(0, +) == stored, "totals \(totals)")
        let files = documents.map { $0["files"] as? [[String: Any]] ?? [] }
        for (index, path) in paths.enumerated() {
            let entries = files.map { $0[index] }
            #expect(entries.allSatisfy { $0["path"] as? String == path })
            #expect(entries.filter { $0["loaded_by"] as? String == "this run" }.count == 1, "\(path): \(entries)")
            #expect(entries.filter { $0["loaded_by"] as? String == "another run" }.count == 1, "\(path): \(entries)")
        }
    }

    @Test("kill -9 mid-file leaves nothing of it; the rerun loads it exactly once")
    func killNineThenRerun() throws {
        let db = try LoaderFixture()
        let path = try bigInstalls(db)
        let process = try db.start(["ingest", path, "--lease", "2"])
        let sawLoading = db.wait(seconds: 60) { (try? db.rows("select status from ingest_files")) == [["loading"]] }
        #expect(sawLoading)
        Thread.sleep(forTimeInterval: 0.3)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let stored = try db.count("select count(*) from raw_installs")
        let status = try db.rows("select status from ingest_files")
        #expect((stored == 0 && status == [["loading"]]) || status == [["loaded"]])

        let rerun = try db.run(["ingest", path, "--lease", "2", "--json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let valid = try db.count("select rows_read - rejected from ingest_files where status = 'loaded'")
        #expect(try db.count("select count(*) from ingest_files where status = 'loaded'") == 1)
        #expect(try db.count("select count(*) from raw_installs") == valid)
        #expect(try db.count("select count(*) from (select app_id, event_id from raw_installs group by 1, 2 having count(*) > 1) d") == 0)
        #expect(try db.count("select count(*) from ingest_rejects") == 300_000 - valid)
    }

    @Test("SIGTERM to funnel worker mid-file exits 0 with the file loaded or back on the queue; another run completes it")
    func sigtermWorker() throws {
        let db = try LoaderFixture()
        let path = try bigInstalls(db)
        let (hex, size) = try FileChecksum.file(at: path)
        _ = try IngestQueue(connection: db.connection).enqueue(path: path, kind: .installs, assumeTimeZone: nil, sha256: hex, sizeBytes: size)
        let process = try db.start(["worker", "--poll", "0.1"])
        #expect(db.wait(seconds: 60) { (try? db.rows("select status from ingest_files")) == [["loading"]] })
        Thread.sleep(forTimeInterval: 0.3)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(db.stderr(of: process))")
        let status = try db.rows("select status from ingest_files")
        let stored = try db.count("select count(*) from raw_installs")
        #expect((status == [["queued"]] && stored == 0) || status == [["loaded"]])

        let rerun = try db.run(["ingest", path])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try db.rows("select status from ingest_files") == [["loaded"]])
        let valid = try db.count("select rows_read - rejected from ingest_files")
        #expect(try db.count("select count(*) from raw_installs") == valid)
    }
}
