import Foundation
import FunnelCompute
import PostgresClient
import TestSupport
import Testing

@Suite("The read-only dashboard role")
struct RolePermissionTests {
    static let expectedViews = ["dash_acquisition", "dash_campaigns", "dash_funnel", "dash_kfactor", "dash_ltv_cpi", "dash_networks",
                                "dash_retention", "dash_retention_summary", "dash_custom_retention", "dash_custom_retention_triangle"]

    @Test("funnel_dashboard reads every dash view but the per-user ones")
    func readsEveryDashView() throws {
        let connection = try PopulatedDatabase.settings.connect()
        let perUser = Set(try PopulatedDatabase.perUserViews(connection))
        let views = try PopulatedDatabase.dashViews(connection).filter { !perUser.contains($0) }
        #expect(Set(Self.expectedViews).isSubset(of: Set(views)))
        try connection.execute("set role funnel_dashboard")
        for view in views {
            let quoted = try connection.quoteIdentifier(view)
            let rows = try connection.query("select count(*)::bigint from \(quoted)").scalar(Int64.self)
            #expect(rows > 0, "\(view) has \(rows) rows")
        }
        #expect(try connection.query("select count(*)::bigint from dash_acquisition").scalar(Int64.self) > 0)
    }

    @Test("dash_ltv_cpi carries the chained observed LTV, which never falls, as fct_ltv has it")
    func chainedLTVInTheDashView() throws {
        let connection = try PopulatedDatabase.settings.connect()
        try connection.execute("set role funnel_dashboard")
        let falls = try connection.query("""
            select count(*)::bigint from (
                select ltv_chained < lag(ltv_chained) over (partition by app_id, network order by day) as fell
                from dash_ltv_cpi where not projected and ltv_chained is not null
            ) d where fell
            """).scalar(Int64.self)
        let rows = try connection.query("select count(*)::bigint from dash_ltv_cpi where not projected and ltv_chained is not null")
            .scalar(Int64.self)
        #expect(rows > 30)
        #expect(falls == 0)
        try connection.execute("reset role")
        let differing = try connection.query("""
            select count(*)::bigint from dash_ltv_cpi d
            join fct_ltv l on l.app_id = d.app_id and l.network = d.network and l.day = d.day and l.projected = d.projected
            where d.ltv_chained is distinct from l.ltv_chained or d.shown is distinct from l.shown
            """).scalar(Int64.self)
        #expect(differing == 0)
    }

    @Test("funnel_dashboard is refused raw, intermediate, mart and bookkeeping tables")
    func refusedEverythingElse() throws {
        let connection = try PopulatedDatabase.settings.connect()
        let tables = try connection.query("""
            select c.relname from pg_class c
            where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
              and c.relname not like 'dash\\_%'
            order by c.relname
            """).map { try $0.decode(String.self, at: 0) }
        for expected in ["raw_installs", "fct_cpi", "fct_networks", "int_user_facts", "ingest_files", "ingest_rejects",
                         "schema_migrations", "compute_runs"] {
            #expect(tables.contains(expected), "\(expected) exists")
        }
        try connection.execute("set role funnel_dashboard")
        for table in tables {
            expectRefused(connection, "select 1 from \(try connection.quoteIdentifier(table)) limit 1")
        }
        expectRefused(connection, "select ensure_month_partitions('raw_installs', '2030-01-01', '2030-02-01')")
    }

    @Test("per-user dash views (dash_user_value) are refused to funnel_dashboard and read by funnel_dashboard_users only")
    func perUserViewsNeedTheirOwnRole() throws {
        let connection = try PopulatedDatabase.settings.connect()
        let perUser = try PopulatedDatabase.perUserViews(connection)
        #expect(perUser.contains("dash_user_value"))
        #expect(try connection.query("select count(*)::bigint from dash_user_value").scalar(Int64.self) > 0)
        try connection.execute("set role funnel_dashboard")
        for view in perUser {
            expectRefused(connection, "select 1 from \(try connection.quoteIdentifier(view)) limit 1")
        }
        try connection.execute("reset role")
        #expect(try connection.query("select rolcanlogin from pg_roles where rolname = 'funnel_dashboard_users'").scalar(Bool.self) == false)
        let aggregates = try PopulatedDatabase.dashViews(connection).filter { !perUser.contains($0) }
        try connection.execute("set role funnel_dashboard_users")
        for view in perUser {
            let rows = try connection.query("select count(*)::bigint from \(try connection.quoteIdentifier(view))").scalar(Int64.self)
            #expect(rows > 0, "\(view) has \(rows) rows")
        }
        for view in aggregates + ["fct_user_value", "raw_purchases"] {
            expectRefused(connection, "select 1 from \(try connection.quoteIdentifier(view)) limit 1")
        }
        expectRefused(connection, "create view funnel.dash_mine as select 1 as one")
    }

    @Test("a database migrated when funnel_dashboard read dash_user_value loses that grant on the next migrate")
    func grantRevokedOnUpgrade() throws {
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try connection.execute("grant select on funnel.dash_user_value to funnel_dashboard")
        try connection.execute("delete from funnel.schema_migrations where version = 145")
        try Migrator().migrate(connection)
        try connection.execute("set role funnel_dashboard")
        expectRefused(connection, "select 1 from funnel.dash_user_value limit 1")
        try connection.execute("reset role; set role funnel_dashboard_users")
        #expect(try connection.query("select count(*)::bigint from funnel.dash_user_value").scalar(Int64.self) == 0)
    }

    @Test("dashboards/README.md lists every dash view, each under the role that reads it")
    func readmeListsEveryView() throws {
        let connection = try PopulatedDatabase.settings.connect()
        let perUser = Set(try PopulatedDatabase.perUserViews(connection))
        let all = Set(try PopulatedDatabase.dashViews(connection))
        let readme = try String(contentsOf: Self.repository.appending(path: "dashboards/README.md"), encoding: .utf8)
        // The rows of the README's tables of views, by the section they are in.
        var listed: [String: Set<String>] = [:]
        var section = ""
        for line in readme.split(separator: "\n") {
            if line.hasPrefix("#") { section = String(line) }
            guard line.hasPrefix("| `dash_") else { continue }
            let name = line.dropFirst(3).prefix { $0 != "`" }
            listed[section, default: []].insert(String(name))
        }
        let aggregateSection = listed.keys.first { $0.lowercased().contains("aggregate") } ?? "(no section on aggregate views)"
        let perUserSection = listed.keys.first { $0.lowercased().contains("per-user") } ?? "(no section on per-user views)"
        #expect(listed[aggregateSection, default: []] == all.subtracting(perUser),
                "\(aggregateSection): missing \(all.subtracting(perUser).subtracting(listed[aggregateSection, default: []]).sorted()), extra \(listed[aggregateSection, default: []].subtracting(all.subtracting(perUser)).sorted())")
        #expect(listed[perUserSection, default: []] == perUser,
                "\(perUserSection): missing \(perUser.subtracting(listed[perUserSection, default: []]).sorted())")
        #expect(listed.count == 2, "the views are listed in two sections, got \(listed.keys.sorted())")
        #expect(readme.contains("grant funnel_dashboard_users to"))
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("funnel_dashboard cannot write through a dash view")
    func cannotWrite() throws {
        let connection = try PopulatedDatabase.settings.connect()
        try connection.execute("set role funnel_dashboard")
        expectRefused(connection, "insert into dash_kfactor (app_id, network) values ('x', 'y')")
        expectRefused(connection, "update dash_networks set verdict = 'cut'")
        expectRefused(connection, "delete from dash_retention_summary")
        expectRefused(connection, "delete from dash_acquisition")
    }

    @Test("funnel_dashboard cannot create objects in the funnel or public schema")
    func cannotCreate() throws {
        let connection = try PopulatedDatabase.settings.connect()
        try connection.execute("set role funnel_dashboard")
        expectRefused(connection, "create table funnel.x (id integer)")
        expectRefused(connection, "create table public.x (id integer)")
        expectRefused(connection, "create view funnel.dash_mine as select 1 as one")
        expectRefused(connection, "create schema mine")
    }

    @Test("tables created after the migration are not readable by funnel_dashboard")
    func futureTablesNotLeaked() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try connection.execute("create table funnel.fct_later (id integer); create view funnel.dash_later as select 1 as one")
        try connection.execute("set role funnel_dashboard")
        expectRefused(connection, "select * from funnel.fct_later")
        expectRefused(connection, "select * from funnel.dash_later")
    }

    @Test("migrating again (another database, same cluster) keeps the role and its grants")
    func migrationIsIdempotentAcrossDatabases() throws {
        let first = try TestCluster.freshDatabase(migrated: true)
        let second = try TestCluster.freshDatabase(migrated: true)
        for settings in [first, second] {
            let connection = try settings.connect()
            try Migrator().migrate(connection)
            #expect(try connection.query("select rolcanlogin from pg_roles where rolname = 'funnel_dashboard'").scalar(Bool.self) == false)
            try connection.execute("set role funnel_dashboard")
            #expect(try connection.query("select count(*)::bigint from dash_networks").scalar(Int64.self) == 0)
        }
    }

    @Test("funnel_dashboard reads dash_friction's rows but not the friction mart behind it")
    func readsFriction() throws {
        let connection = try PopulatedDatabase.settings.connect()
        try #require(try connection.query("select to_regclass('fct_friction_impact') is not null").scalar(Bool.self),
                     "fct_friction_impact exists")
        try connection.execute("set role funnel_dashboard")
        let rows = try connection.query("select count(*)::bigint from dash_friction").scalar(Int64.self)
        #expect(rows > 0, "dash_friction has \(rows) rows")
        expectRefused(connection, "select 1 from fct_friction_impact")
    }
}
