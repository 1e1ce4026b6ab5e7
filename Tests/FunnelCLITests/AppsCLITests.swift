import Foundation
import PostgresClient
import Testing
import TestSupport

/// `funnel apps list` and `funnel apps delete`, and the demo writing beside a team's data only
/// when told to, through the binary against a real PostgreSQL.
@Suite("funnel apps")
struct AppsCLITests {
    @Test("delete removes one app's rows everywhere, forgets its own files, keeps shared ones, and needs --yes off a terminal")
    func deleteOneApp() throws {
        let settings = try TestCluster.freshDatabase()
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-apps")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""]
        func funnel(_ arguments: [String]) throws -> FunnelExecutable.Outcome {
            try FunnelExecutable.run(arguments, environment: environment, currentDirectory: folder)
        }
        func write(_ name: String, _ text: String) throws -> String {
            let url = folder.appending(path: name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let header = "event_id,app_id,user_id,installed_at,network\n"
        let own = try write("installs-a.csv", header + "i1,a,u1,2024-05-01T10:00:00Z,meta\ni2,a,u2,2024-05-02T10:00:00Z,organic\n")
        let shared = try write("installs-ab.csv", header + "i3,a,u3,2024-05-03T10:00:00Z,meta\ni4,b,v1,2024-05-03T10:00:00Z,meta\n")
        let other = try write("installs-b.csv", header + "i5,b,v2,2024-05-04T10:00:00Z,meta\n")
        let purchases = try write("purchases-a.csv", "event_id,app_id,user_id,purchased_at,revenue,currency\n"
            + "p1,a,u1,2024-05-02T12:00:00Z,5,USD\n")
        #expect(try funnel(["ingest", own, shared, other, purchases, "-q"]).status == 0)
        #expect(try funnel(["compute"]).status == 0)

        let list = try funnel(["apps", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(lines.count == 3, "\(list.stdout)")
        #expect(lines.dropFirst().map { Array($0.prefix(4)) } == [["a", "3", "2024-05-01", "2024-05-03"], ["b", "2", "2024-05-03", "2024-05-04"]],
                "\(list.stdout)")

        let refused = try funnel(["apps", "delete", "a"])
        #expect(refused.status == 2 && refused.stderr.contains("--yes"), "\(refused.stderr)")
        let unknown = try funnel(["apps", "delete", "zzz", "--yes"])
        #expect(unknown.status == 1 && unknown.stderr.contains("funnel apps list"), "\(unknown.stderr)")

        let connection = try settings.connect()
        func count(_ sql: String) throws -> Int { try connection.query(sql).scalar(Int.self) }
        #expect(try count("select count(*) from funnel.int_user_facts where app_id = 'a'") > 0)

        let deleted = try funnel(["apps", "delete", "a", "--yes", "--json"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(deleted.stdout.utf8)) as? [String: Any])
        let forgotten = (document["forgotten_files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        let kept = (document["shared_files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(Set(forgotten) == [own, purchases], "\(deleted.stdout)")
        #expect(kept == [shared], "\(deleted.stdout)")

        // No table keeps a row of app a; b is untouched.
        let tables = try connection.query("""
            select c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = c.oid and a.attname = 'app_id'
            where n.nspname = 'funnel' and c.relkind in ('r', 'p') and not c.relispartition
            """).map { try $0.decode(String.self, at: 0) }
        #expect(tables.count > 20)
        for table in tables {
            #expect(try count("select count(*) from funnel.\"\(table)\" where app_id = 'a'") == 0, "\(table)")
        }
        #expect(try count("select count(*) from funnel.raw_installs where app_id = 'b'") == 2)
        #expect(try count("select count(*) from funnel.int_user_facts where app_id = 'b'") == 2)

        // The forgotten files load again; the shared one is still recorded as loaded.
        let again = try funnel(["ingest", own, shared, purchases, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try count("select count(*) from funnel.raw_installs where app_id = 'a'") == 2)
        #expect(try count("select count(*) from funnel.raw_purchases where app_id = 'a'") == 1)
        #expect(try funnel(["compute"]).status == 0)
        #expect(try funnel(["apps", "list"]).stdout.contains("2024-05-02"))
    }

    @Test("funnel demo with a selected database says loudly that it writes beside the data there")
    func demoSharesSelectedDatabase() throws {
        let settings = try TestCluster.freshDatabase()
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-apps-demo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let demo = try FunnelExecutable.run(["demo", "--dir", folder.appending(path: "demo").path, "--users", "200", "--days", "8", "-q"],
                                            environment: ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stderr.contains("NOTE: writing the sample app com.example.app into the database you selected"), "\(demo.stderr)")
        #expect(demo.stderr.contains("funnel apps delete com.example.app"))
        #expect(try settings.connect().query("select count(*) from funnel.raw_installs where app_id = 'com.example.app'").scalar(Int.self) > 0)
    }
}
