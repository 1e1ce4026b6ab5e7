import Foundation
import FunnelCore
import FunnelIngest
import IngestFixtures
import PostgresClient
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Key tables are unlogged (migration 0124): a crash of the server empties them. On its own
/// cluster, which it crashes with SIGKILL, this checks that the crash does empty them and that the
/// next load of each kind, by either merge, fills them again before deduplicating, so no event is
/// stored twice.
@Suite("Key tables after a server crash", .serialized)
struct KeyTableCrashTests {
    static func opens(_ numbers: ClosedRange<Int>) -> String {
        "event_id,app_id,user_id,opened_at,session_seconds\n"
            + numbers.map { "o\($0),app,u\($0),2024-05-\(String(format: "%02d", $0 % 28 + 1))T09:00:00Z,\($0)\n" }.joined()
    }

    @Test("a crash empties the key tables; the next load by either merge fills them again and stores nothing twice")
    func keysRestoredAfterCrash() throws {
        let cluster = EmbeddedCluster(directory: try TestCluster.makeTemporaryDirectory(prefix: "funnel-crash"))
        defer {
            _ = try? cluster.stop()
            try? FileManager.default.removeItem(at: cluster.directory)
        }
        try cluster.start()
        let settings = try TestCluster.freshDatabase(on: cluster, migrated: true)
        let scratch = try Scratch()
        func ingest(_ name: String, _ text: String, bulk: Bool) throws {
            var run = IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 1)
            run.workerOptions.mergePath = bulk ? .bulk : .daily
            run.workerOptions.bulkMinimumRows = 1
            run.workerOptions.splitCopyBytes = 0
            let reports = try run.run(files: [try scratch.file(name, text)], stop: StopFlag(), progress: IngestProgress(),
                                      logger: LoaderFixture.quietLogger)
            #expect(reports.allSatisfy { $0.status == .loaded }, "\(reports.map(\.message))")
        }
        func query(_ sql: String) throws -> Int {
            try settings.connect().query(sql).scalar(Int.self)
        }
        func crash() throws {
            guard case .running(let pid) = cluster.status() else {
                Issue.record("the cluster is not running")
                return
            }
            kill(pid, SIGKILL)
            try cluster.start()
        }

        #expect(try query("select count(*) from pg_class where relname like 'raw\\_%\\_keys' and relpersistence = 'u'") == 7)
        try ingest("opens-a.csv", Self.opens(1...40), bulk: true)
        #expect(try query("select count(*) from raw_opens_keys") == 40)

        try crash()
        #expect(try query("select count(*) from raw_opens_keys") == 0, "the crash empties the unlogged key table")
        #expect(try query("select count(*) from raw_opens") == 40)
        // o31-o40 are stored already: the daily merge must skip them.
        try ingest("opens-b.csv", Self.opens(31...60), bulk: false)
        #expect(try query("select count(*) from raw_opens") == 60)
        #expect(try query("select count(distinct event_id) from raw_opens") == 60)

        try crash()
        #expect(try query("select count(*) from raw_opens_keys") == 0)
        // o51-o60 are stored already: the bulk merge of a split load must skip them.
        try ingest("opens-c.csv", Self.opens(51...80), bulk: true)
        #expect(try query("select count(*) from raw_opens") == 80)
        #expect(try query("select count(distinct event_id) from raw_opens") == 80)
        #expect(try query("""
            select count(*) from (
                (select app_id, event_id from raw_opens except select app_id, event_id from raw_opens_keys)
                union all
                (select app_id, event_id from raw_opens_keys except select app_id, event_id from raw_opens)) d
            """) == 0, "the key table holds every stored event's key, and only those")
    }
}
