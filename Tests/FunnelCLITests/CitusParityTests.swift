import Foundation
import PostgresClient
import Testing
import TestSupport

/// funnel on Citus (issue 34): the same migrations distribute the tables on a database with the
/// citus extension, and the same generated data through plain PostgreSQL and through a local
/// 3-node Citus cluster (a coordinator and two workers) gives the same marts and report files.
/// Skipped when the Citus extension is not installed (`make citus`).
@Suite("funnel on Citus beside plain PostgreSQL",
       .enabled(if: CitusTestCluster.isAvailable, "the Citus extension is not installed (make citus builds it)"))
struct CitusParityTests {
    @Test("migrate distributes raw events and per-user tables by user_id, co-located, and small tables as reference tables")
    func migrateDistributes() throws {
        let settings = try CitusTestCluster.freshDatabase()
        let outcome = try FunnelExecutable.run(["migrate"], environment: ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("citus: "), "\(outcome.stdout)")
        let connection = try settings.connect()
        let rows = try connection.query("""
            select c.relname, p.partmethod::text, p.colocationid
            from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
            join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'funnel' and not c.relispartition
            """).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(Int.self, at: 2)) }
        let method = Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
        let group = Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.2) })
        for table in ["raw_events", "raw_steps", "raw_purchases", "int_user_facts", "int_user_funnel_steps", "int_user_retention"] {
            #expect(method[table] == "h", "\(table) is hash-distributed")
            #expect(group[table] == group["raw_events"], "\(table) is co-located with raw_events")
        }
        for table in ["currency_rates", "compute_funnels"] {
            #expect(method[table] == "n", "\(table) is a reference table")
        }
        // On the coordinator (docs/citus.md): the one-row settings the marts read, and the funnel
        // points, read whole for exact medians.
        for table in ["compute_settings", "int_funnel_points", "raw_installs", "fct_retention_cells"] {
            #expect(method[table] == nil, "\(table) stays on the coordinator")
        }
        let column = try connection.query("""
            select column_to_column_name(logicalrelid, partkey) from pg_dist_partition
            where logicalrelid = 'funnel.int_user_facts'::regclass
            """).scalar(String.self)
        #expect(column == "user_id")
        // Migrating again changes nothing: the same tables, the same shards.
        let shards = "select count(*) from pg_dist_shard"
        let before = try connection.query(shards).scalar(Int.self)
        let again = try FunnelExecutable.run(["migrate"], environment: ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try connection.query(shards).scalar(Int.self) == before)
    }

    @Test("the same generated data (dirty rows and duplicates, telemetry, hourly spend; then late events and restated spend folded in by a second run) through plain PostgreSQL and 3-node Citus: the same raw rows, derived tables, marts, report files and dash_* views (as funnel_dashboard)")
    func sameResults() throws {
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-citus-parity")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appending(path: "exports"), late = folder.appending(path: "late")
        let generated = try FunnelExecutable.run(["generate", "--out", data.path, "--users", "400", "--days", "14",
                                                  "--seed", "34", "--dirty", "--hourly-spend"])
        try #require(generated.status == 0, "\(generated.stderr)")
        // The late files arrive after a first compute, with a restatement of some spend rows, so
        // the second run folds them into users already computed (the incremental path).
        try FileManager.default.createDirectory(at: late, withIntermediateDirectories: true)
        let generatedFiles = try FileManager.default.contentsOfDirectory(atPath: data.path)
        for file in generatedFiles where file.contains("-late-") {
            try FileManager.default.moveItem(at: data.appending(path: file), to: late.appending(path: file))
        }
        let spendFile = try #require(generatedFiles.first { $0.hasPrefix("ad_spend-") })
        try Self.restatedSpend(from: data.appending(path: spendFile), rows: 20)
            .write(to: late.appending(path: "ad_spend-restated.csv"), atomically: true, encoding: .utf8)

        let engines = [("plain", try TestCluster.freshDatabase()), ("citus", try CitusTestCluster.freshDatabase())]
        func funnel(_ arguments: [String], on settings: ConnectionSettings) throws -> FunnelExecutable.Outcome {
            try FunnelExecutable.run(arguments, environment: ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""],
                                     currentDirectory: folder)
        }
        var raw: [String: [String: String]] = [:]
        for (engine, settings) in engines {
            for command in [["migrate"], ["ingest", data.path], ["compute"], ["ingest", late.path], ["compute"],
                            ["report", "--app", "com.example.app", "--format", "text,csv,json",
                             "--out", folder.appending(path: "reports-\(engine)").path]] {
                let outcome = try funnel(command, on: settings)
                try #require(outcome.status == 0, "\(engine): funnel \(command.joined(separator: " ")) failed: \(outcome.stderr)")
            }
            raw[engine] = try Self.tableContents(settings, prefix: "raw\\_")
        }
        let plainRaw = try #require(raw["plain"]), citusRaw = try #require(raw["citus"])
        #expect(plainRaw["raw_ux"]?.isEmpty == false, "the raw tables hold rows")
        for (table, rows) in plainRaw.sorted(by: { $0.key < $1.key }) {
            #expect(citusRaw[table] == rows, "\(table) differs between plain PostgreSQL and Citus after ingest")
        }

        let (plain, citus) = (engines[0].1, engines[1].1)
        let plainDerived = try Self.tableContents(plain, prefix: "int\\_")
        #expect(plainDerived["int_user_facts"]?.isEmpty == false, "the user facts hold rows")
        let citusDerived = try Self.tableContents(citus, prefix: "int\\_")
        for (table, rows) in plainDerived.sorted(by: { $0.key < $1.key }) {
            #expect(citusDerived[table] == rows, "\(table) differs between plain PostgreSQL and Citus")
        }
        let plainMarts = try Self.tableContents(plain, prefix: "fct\\_")
        #expect(plainMarts.values.contains { !$0.isEmpty }, "the marts hold rows")
        let citusMarts = try Self.tableContents(citus, prefix: "fct\\_")
        for (table, rows) in plainMarts.sorted(by: { $0.key < $1.key }) {
            #expect(citusMarts[table] == rows, "\(table) differs between plain PostgreSQL and Citus")
        }
        let plainReports = folder.appending(path: "reports-plain"), citusReports = folder.appending(path: "reports-citus")
        let files = try FileManager.default.contentsOfDirectory(atPath: plainReports.path).sorted()
        #expect(!files.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: citusReports.path).sorted() == files)
        for file in files {
            let expected = try Self.withoutRunTimes(String(decoding: Data(contentsOf: plainReports.appending(path: file)), as: UTF8.self))
            let actual = try Self.withoutRunTimes(String(decoding: Data(contentsOf: citusReports.appending(path: file)), as: UTF8.self))
            #expect(actual == expected, "\(file) differs between plain PostgreSQL and Citus")
        }
        let plainViews = try Self.dashboardViews(plain), citusViews = try Self.dashboardViews(citus)
        #expect(plainViews.count >= 16, "every dash_* view was read")
        #expect(plainViews.values.contains { !$0.isEmpty }, "the dash_* views hold rows")
        for (view, rows) in plainViews.sorted(by: { $0.key < $1.key }) {
            #expect(citusViews[view] == rows, "\(view) differs between plain PostgreSQL and Citus")
        }
    }

    @Test("exactly once on Citus: two funnel ingest processes on one queue, one killed with kill -9 mid-file, then a rerun: every raw table equals a clean import on plain PostgreSQL")
    func exactlyOnceAfterKill() throws {
        let folder = try TestCluster.makeTemporaryDirectory(prefix: "funnel-citus-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appending(path: "exports")
        let generated = try FunnelExecutable.run(["generate", "--out", data.path, "--users", "3000", "--days", "14",
                                                  "--seed", "35", "--dirty"])
        try #require(generated.status == 0, "\(generated.stderr)")
        let plain = try TestCluster.freshDatabase(), citus = try CitusTestCluster.freshDatabase()
        func environment(_ settings: ConnectionSettings) -> [String: String] {
            ["DATABASE_URL": settings.conninfo, "FUNNEL_CONFIG": ""]
        }
        for (settings, command) in [(plain, ["migrate"]), (plain, ["ingest", data.path]), (citus, ["migrate"])] {
            let outcome = try FunnelExecutable.run(command, environment: environment(settings))
            try #require(outcome.status == 0, "funnel \(command.joined(separator: " ")) failed: \(outcome.stderr)")
        }
        let clean = try Self.tableContents(plain, prefix: "raw\\_")

        // Two processes, one worker each, take files from the same queue; one is killed while a
        // file is loading.
        let processes = try (0..<2).map { _ in
            try FunnelExecutable.start(["ingest", data.path, "--lease", "2", "--workers", "1"], environment: environment(citus))
        }
        let connection = try citus.connect()
        let deadline = Date().addingTimeInterval(120)
        var sawLoading = false
        while Date() < deadline && !sawLoading {
            sawLoading = try connection.query("select count(*) from ingest_files where status = 'loading'").scalar(Int.self) > 0
            if !sawLoading { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(sawLoading, "no file was seen loading")
        Thread.sleep(forTimeInterval: 0.2)
        kill(processes[0].processIdentifier, SIGKILL)
        for process in processes { process.waitUntilExit() }
        #expect(processes[0].terminationReason == .uncaughtSignal, "the first process was killed")

        let rerun = try FunnelExecutable.run(["ingest", data.path, "--lease", "2"], environment: environment(citus))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: data.path).filter { $0.hasSuffix(".csv") }.count
        #expect(try connection.query("select count(*) from ingest_files where status = 'loaded'").scalar(Int.self) == files)
        let rerunContents = try Self.tableContents(citus, prefix: "raw\\_")
        #expect(clean["raw_ux"]?.isEmpty == false)
        for (table, rows) in clean.sorted(by: { $0.key < $1.key }) {
            #expect(rerunContents[table] == rows, "\(table): rows lost or duplicated on Citus after kill -9 and a rerun")
        }
    }

    /// A restatement of the first `rows` ad spend rows of a generated file that have a spend: the
    /// same keys (date, network, campaign, country, hour) with the spend doubled, so a later file
    /// replaces them (docs/inputs.md).
    static func restatedSpend(from file: URL, rows: Int) throws -> String {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let spend = try #require(header.firstIndex(of: "spend"))
        var restated = [lines[0]]
        for line in lines.dropFirst() where restated.count <= rows {
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == header.count, let value = Double(fields[spend]) else { continue }
            fields[spend] = String(format: "%.2f", value * 2)
            restated.append(fields.joined(separator: ","))
        }
        return restated.joined(separator: "\n") + "\n"
    }

    /// A report's text with the times of the run that wrote it (today's UTC date, as
    /// `YYYY-MM-DDTHH:MM:SS...Z`) replaced: the two engines computed a few seconds apart. The data's
    /// own dates are in the generated past.
    static func withoutRunTimes(_ text: String) -> String {
        let today = ISO8601DateFormatter().string(from: Date()).prefix(10)
        return text.replacing(try! Regex("\(today)T[0-9:.]+Z"), with: "<run time>")
    }

    /// The rows of every `dash_*` view as sorted text lines by view, read as the read-only
    /// `funnel_dashboard` role, as Grafana reads them (the per-user views, those with a user_id,
    /// as `funnel_dashboard_users`, the only role that reads them).
    static func dashboardViews(_ settings: ConnectionSettings) throws -> [String: String] {
        let connection = try settings.connect()
        let views = try connection.query("""
            select viewname from pg_views where schemaname = 'funnel' and viewname like 'dash\\_%' order by 1
            """).map { try $0.decode(String.self, at: 0) }
        let perUser = Set(try connection.query("""
            select table_name from information_schema.columns
            where table_schema = 'funnel' and table_name like 'dash\\_%' and column_name = 'user_id'
            """).map { try $0.decode(String.self, at: 0) })
        var contents: [String: String] = [:]
        for view in views {
            try connection.execute("set role \(perUser.contains(view) ? "funnel_dashboard_users" : "funnel_dashboard")")
            let name = try connection.quoteIdentifier(view)
            contents[view] = try connection.query("select v::text as r from funnel.\(name) v order by 1")
                .map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
        }
        return contents
    }

    /// The rows of every funnel table whose name matches `prefix` (a LIKE pattern), as sorted text
    /// lines by table, without the columns that default to `now()` (when a row was written) and
    /// without `file_id`: files load in parallel, so which of two files carrying the same event
    /// keeps it is a race on either engine (the rows are otherwise the same).
    static func tableContents(_ settings: ConnectionSettings, prefix: String) throws -> [String: String] {
        let connection = try settings.connect()
        let tables = try connection.query("""
            select c.relname,
                   string_agg(quote_ident(a.attname), ', ' order by a.attnum)
                       filter (where coalesce(pg_get_expr(d.adbin, d.adrelid), '') <> 'now()' and a.attname <> 'file_id')
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
            where n.nspname = 'funnel' and c.relkind in ('r', 'p') and c.relname like $1 || '%'
              and not c.relispartition
            group by c.relname order by 1
            """, [prefix]).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        var contents: [String: String] = [:]
        for (table, columns) in tables {
            let name = try connection.quoteIdentifier(table)
            contents[table] = try connection.query("select row(\(columns))::text as r from funnel.\(name) order by 1")
                .map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
        }
        return contents
    }
}
