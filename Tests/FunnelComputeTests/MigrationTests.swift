import Foundation
import FunnelCompute
import FunnelSQL
import FunnelCore
import FunnelIngest
import Logging
import PostgresClient
import Testing
import TestSupport

@Suite("Migrations")
struct MigrationTests {
    @Test("sql/schema.sql is the schema the migrations build (make schema writes it again)")
    func schemaSnapshot() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        let objects = try connection.query(SQLCatalog.text("schema/describe.sql")).map { try $0.decode(String.self, at: 0) }
        let text = """
            -- schema: the schema funnel's migrations build (sql/migrations), as DDL read back from the
            -- catalog by sql/schema/describe.sql: tables, constraints, indexes, views and functions, in
            -- name order. Generated: `make schema` writes it again; a test fails while it differs. It is
            -- for reading; the migrations are what builds a database.

            """ + "\n" + objects.joined(separator: "\n\n") + "\n"
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "sql/schema.sql")
        if ProcessInfo.processInfo.environment["FUNNEL_WRITE_SCHEMA"] == "1" {
            try Data(text.utf8).write(to: file, options: .atomic)
        }
        #expect(objects.count > 100)
        let stored = try String(contentsOf: file, encoding: .utf8)
        #expect(stored == text, "sql/schema.sql differs from the schema the migrations build: run make schema")
    }

    @Test("migrate applies every migration once, in order, and a second run does nothing")
    func migrateTwice() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let first = try Migrator().migrate(connection)
        #expect(first.applied == Migration.all.map(\.name))
        #expect(first.alreadyApplied == 0)
        let second = try Migrator().migrate(connection)
        #expect(second.applied.isEmpty)
        #expect(second.alreadyApplied == Migration.all.count)
        let versions = try connection.query("select version from funnel.schema_migrations order by applied_at, version")
            .map { try $0.decode(Int.self, at: 0) }
        #expect(versions == Migration.all.map(\.version))
        #expect(try Migrator().pending(connection).isEmpty)
    }

    @Test("every dash_* view has its file in sql/dashboards; a file is applied again only after a migration or when it changed")
    func dashboardFiles() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let first = try Migrator().migrate(connection)
        let names = DashboardView.all.map(\.name)
        #expect(first.views == names)
        let views = try connection.query("""
            select viewname from pg_views where schemaname = 'funnel' and viewname like 'dash\\_%' order by viewname
            """).map { try $0.decode(String.self, at: 0) }
        #expect(views == names, "each dash_* view reads in one file of sql/dashboards")
        #expect(try !Migrator().needsRun(connection))
        #expect(try Migrator().migrate(connection).views.isEmpty)

        // A file whose text differs from the one applied (an edited view) is pending, and applied once.
        try connection.execute("update funnel.dashboard_views set checksum_sha256 = 'edited' where name = 'dash_funnel'")
        #expect(try Migrator().pendingDashboards(connection) == ["dash_funnel"])
        #expect(try Migrator().needsRun(connection))
        let again = try Migrator().migrate(connection)
        #expect(again.applied.isEmpty && again.views == ["dash_funnel"])
        #expect(try Migrator().pendingDashboards(connection).isEmpty)
        let granted = try connection.query(
            "select has_table_privilege('funnel_dashboard', 'funnel.dash_funnel', 'select')").scalar(Bool.self)
        #expect(granted)

        // A migrator that stops short of the newest schema leaves the views to the migrations.
        #expect(Migrator(migrations: Array(Migration.all.dropLast())).dashboards.isEmpty)
    }

    @Test("migrations are numbered uniquely and create the raw table of every input kind")
    func firstMigrationCoversEveryKind() throws {
        let versions = Migration.all.map(\.version)
        #expect(Set(versions).count == versions.count)
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        for kind in EventKind.allCases {
            let partitioned = try connection.query(
                "select count(*) from pg_partitioned_table p join pg_class c on c.oid = p.partrelid where c.relname = $1",
                [kind.rawTable]).scalar(Int.self)
            #expect(partitioned == (kind.isPartitioned ? 1 : 0), "\(kind.rawTable) is partitioned when its kind says so")
            let columns = try connection.query("""
                select column_name from information_schema.columns
                where table_schema = 'funnel' and table_name = $1 order by ordinal_position
                """, [kind.rawTable]).map { try $0.decode(String.self, at: 0) }
            let dateColumn = kind == .currencyRates ? "rate_date" : "spend_date"
            let expected = kind.fieldNames.map { $0 == "date" ? dateColumn : $0 }
            #expect(Set(columns) == Set(expected + ["file_id"]), "\(kind.rawTable) has a column per field, and its file")
        }
    }

    @Test("two migrate runs at once both succeed and apply each migration exactly once")
    func concurrentMigrations() throws {
        let settings = try TestCluster.freshDatabase()
        let reports = Locked<[Result<Migrator.Report, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let report = Result { try Migrator().migrate(try settings.connect()) }
            reports.withLock { $0.append(report) }
        }
        let outcomes = try reports.withLock { $0 }.map { try $0.get() }
        #expect(outcomes.map(\.applied.count).sorted() == [0, Migration.all.count])
        let connection = try settings.connect()
        #expect(try connection.query("select count(*) from funnel.schema_migrations").scalar(Int.self) == Migration.all.count)
    }

    @Test("a migration changed after it was applied is refused, and nothing runs")
    func tamperedMigration() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try connection.query("update funnel.schema_migrations set checksum_sha256 = $1 where version = 1", [String(repeating: "0", count: 64)])
        let error = #expect(throws: MigrationError.self) { try Migrator().migrate(connection) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("0001_raw_tables was changed after it was applied"))
        #expect(message.contains("new migration"))
    }

    @Test("a database migrated by a newer funnel is refused with advice to upgrade")
    func newerDatabase() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try connection.query("insert into funnel.schema_migrations (version, name, checksum_sha256) values (9999, '9999_future', 'x')")
        let error = #expect(throws: MigrationError.self) { try Migrator().migrate(connection) }
        #expect(error.map { "\($0)" }?.contains("Upgrade funnel") == true)
    }

    @Test("0049 moves each user's state from their stored days into their facts, and drops the days")
    func userStateMovesIntoFacts() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try Migrator(migrations: Migration.all.filter { $0.version < 49 }).migrate(connection)
        try connection.execute("""
            insert into funnel.int_user_facts (app_id, user_id, cohort_date, installed_at, network, campaign, country,
                                               platform, acquisition, installs, regular_opens, invites_sent, last_active_day)
            values ('app', 'u1', '2024-03-01', '2024-03-01 10:00+00', 'adnova', 'c1', 'US', 'ios', 'paid', 1, 3, 1, 3),
                   ('app', 'u2', '2024-03-01', '2024-03-01 11:00+00', 'organic', '', 'US', 'ios', 'organic', 1, 0, 0, 0);
            insert into funnel.int_user_days (app_id, user_id, day_n, opens, active, revenue_usd, purchases, invites,
                                              first_open_at, regular_open_times, purchase_times, last_event_at)
            values ('app', 'u1', 0, 0, true, 0, 0, 0, null, null, null, '2024-03-01 10:00+00'),
                   ('app', 'u1', 1, 2, true, 0, 0, 0, '2024-03-02 08:00+00',
                    '{2024-03-02 20:00+00,2024-03-02 08:00+00}', null, '2024-03-02 20:00+00'),
                   ('app', 'u1', 2, 1, true, 3.5, 2, 0, '2024-03-03 09:00+00', '{2024-03-03 09:00+00}',
                    '{2024-03-03 12:00+00,2024-03-03 10:00+00}', '2024-03-03 12:00+00'),
                   ('app', 'u1', 5, 0, false, 0, 0, 1, null, null, null, '2024-03-06 10:00+00');
            """)
        try Migrator().migrate(connection)
        let state = try connection.query("""
            select user_id || ' ' || active_days::text || ' ' || purchase_days::text || ' '
                   || array_to_string(regular_open_times, ',') || ' ' || array_to_string(purchase_times, ',')
                   || ' ' || regular_opens || ' ' || last_active_day
            from funnel.int_user_facts order by user_id
            """).map { try $0.decode(String.self, at: 0) }
        #expect(state == [
            "u1 {0,1,2} {2} 2024-03-02 08:00:00+00,2024-03-02 20:00:00+00,2024-03-03 09:00:00+00 "
                + "2024-03-03 10:00:00+00,2024-03-03 12:00:00+00 3 3",
            "u2 {} {}   0 0",
        ])
        #expect(try connection.query("select to_regclass('funnel.int_user_days') is null").scalar(Bool.self))
    }

    @Test("monthly partitions are created on demand, idempotently, and events are keyed for dedup")
    func partitionsAndKeys() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        #expect(try connection.query("select ensure_month_partitions('raw_opens', '2024-04-15', '2024-06-02')").scalar(Int.self) == 3)
        #expect(try connection.query("select ensure_month_partitions('raw_opens', '2024-05-01', '2024-05-31')").scalar(Int.self) == 0)
        let insert = "insert into raw_opens (event_id, app_id, user_id, opened_at, file_id) values ('e1', 'app', 'u1', $1, 0)"
        try connection.query(insert, ["2024-05-31 23:59:59+00"])
        let outside = #expect(throws: PostgresError.self) {
            try connection.query(insert.replacingOccurrences(of: "'e1'", with: "'e2'"), ["2024-07-01 00:00:00+00"])
        }
        #expect(outside?.sqlState == .checkViolation || outside?.message.contains("no partition") == true)
        #expect(throws: PostgresError.self) {
            try connection.query("select ensure_month_partitions('pg_class', '2024-01-01', '2024-01-01')")
        }
        // Every event kind but installs is keyed by its key table (0050), event id first (0122),
        // installs by their raw table.
        for kind in EventKind.allCases where kind.isEvent {
            let table = kind.keyTable ?? kind.rawTable
            let key = try connection.query("""
                select string_agg(a.attname, ',' order by k.ord)
                from pg_constraint c
                cross join lateral unnest(c.conkey) with ordinality as k (attnum, ord)
                join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
                where c.conrelid = ('funnel.' || $1)::regclass and c.contype = 'p'
                """, [table]).scalar(String?.self)
            #expect(key == (kind == .installs ? "app_id,event_id,installed_at" : "event_id,app_id"), "\(table)")
        }
        try connection.query("insert into raw_opens_keys (app_id, event_id) values ('app', 'e1')")
        let duplicate = #expect(throws: PostgresError.self) {
            try connection.query("insert into raw_opens_keys (app_id, event_id) values ('app', 'e1')")
        }
        #expect(duplicate?.sqlState == .uniqueViolation)
    }

    @Test("0051 keeps the stored triangle: the view gives back its classic and rolling cells from the new cells")
    func retentionCellsFromStoredTriangle() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try Migrator(migrations: Migration.all.filter { $0.version < 51 }).migrate(connection)
        // One cohort of 3 on adnova, days 0-3 mature: u1 active on days 0, 1 and 3, u2 on 0 and 2,
        // u3 on 0 only. Classic 3, 1, 1, 1; last active on day 0 u3, day 2 u2, day 3 u1; rolling
        // (active on day N or later) 3, 2, 2, 1.
        let classic = [3, 1, 1, 1], rolling = [3, 2, 2, 1]
        var rows: [String] = []
        for network in ["adnova", "all"] {
            for day in 0..<4 {
                rows.append("('app', 'classic', '2024-03-01', '\(network)', 3, \(day), \(classic[day]), \(Double(classic[day]) / 3))")
                rows.append("('app', 'rolling', '2024-03-01', '\(network)', 3, \(day), \(rolling[day]), \(Double(rolling[day]) / 3))")
            }
        }
        try connection.execute("""
            insert into funnel.int_network_day_rollup (app_id, cohort_date, network, day_n, active_users,
                                                       last_active_users, revenue_usd, payers, new_payers)
            values ('app', '2024-03-01', 'adnova', 0, 3, 1, 0, 0, 0), ('app', '2024-03-01', 'adnova', 1, 1, 0, 0, 0, 0),
                   ('app', '2024-03-01', 'adnova', 2, 1, 1, 0, 0, 0), ('app', '2024-03-01', 'adnova', 3, 1, 1, 0, 0, 0);
            insert into funnel.fct_retention (app_id, mode, cohort_date, network, cohort_size, day, retained, rate)
            values \(rows.joined(separator: ", "));
            """)
        let query = """
            select string_agg(mode || ' ' || network || ' ' || day || ' ' || cohort_size || ' ' || retained || ' '
                              || round(rate::numeric, 4), ', ' order by mode, network, day)
            from funnel.fct_retention
            """
        let before = try connection.query(query).scalar(String.self)
        try Migrator().migrate(connection)
        #expect(try connection.query(query).scalar(String.self) == before)
        #expect(try connection.query(
            "select string_agg(retained || '/' || last_active, ' ' order by day) from funnel.fct_retention_cells where network = 'all'"
        ).scalar(String.self) == "3/1 1/0 1/1 1/1")
        #expect(try connection.query(
            "select has_table_privilege('funnel_dashboard', 'funnel.dash_retention', 'select')").scalar(Bool.self))
    }

    @Test("0053 keeps each user's first episode per screen and friction type, with the class their outcome is counted under")
    func frictionHitsFromStoredEpisodes() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try Migrator(migrations: Migration.all.filter { $0.version < 53 }).migrate(connection)
        // u1 hit the signup keyboard twice (the earlier one, in landscape, is their first) and a
        // network error once; u2 hit the keyboard once but has no outcome (not counted).
        try connection.execute("""
            set search_path = funnel;
            insert into fct_friction_episodes (app_id, user_id, session_id, screen, friction_type, occurred_at,
                                               severity, input_mode, orientation, platform)
            values ('a', 'u1', 's2', 'signup', 'keyboard_covers_action', '2024-03-02 09:00+00', 1, 'en-US', 'portrait', 'ios'),
                   ('a', 'u1', 's1', 'signup', 'keyboard_covers_action', '2024-03-01 09:00+00', 1, 'ja-JP', 'landscape', 'ios'),
                   ('a', 'u1', 's1', 'profile', 'network_error_no_feedback', '2024-03-01 09:05+00', 1, null, null, 'ios'),
                   ('a', 'u2', 's3', 'signup', 'keyboard_covers_action', '2024-03-01 10:00+00', 1, 'en-US', 'portrait', 'android');
            insert into int_friction_outcomes (app_id, user_id, completed, returned_d1, counted_class)
            values ('a', 'u1', false, true, 2);
            """)
        try Migrator().migrate(connection)
        let hits = try connection.query("""
            select concat_ws('|', screen, friction_type, user_id, first_at, input_mode, orientation, platform, counted_class)
            from funnel.int_friction_hits order by 1
            """).map { try $0.decode(String.self, at: 0) }
        #expect(hits == [
            "profile|network_error_no_feedback|u1|2024-03-01 09:05:00+00|ios|2",
            "signup|keyboard_covers_action|u1|2024-03-01 09:00:00+00|ja-JP|landscape|ios|2",
            "signup|keyboard_covers_action|u2|2024-03-01 10:00:00+00|en-US|portrait|android",
        ])
    }

    @Test("0054 keys the reached screens by user first and keeps every row, still once each")
    func reachedScreensKeyedByUser() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try Migrator(migrations: Migration.all.filter { $0.version < 54 }).migrate(connection)
        try connection.execute("""
            insert into funnel.int_friction_reached (app_id, screen, user_id)
            values ('a', 'signup', 'u2'), ('a', 'welcome', 'u2'), ('a', 'signup', 'u1'), ('b', 'signup', 'u1');
            """)
        try Migrator().migrate(connection)
        #expect(try connection.query("""
            select string_agg(concat_ws('/', app_id, user_id, screen), ' ' order by app_id, user_id, screen)
            from funnel.int_friction_reached
            """).scalar(String.self) == "a/u1/signup a/u2/signup a/u2/welcome b/u1/signup")
        #expect(try connection.query("""
            select string_agg(a.attname, ',' order by k.ord)
            from pg_index i
            cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
            join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
            where i.indrelid = 'funnel.int_friction_reached'::regclass and i.indisprimary
            """).scalar(String.self) == "app_id,user_id,screen")
        #expect(try connection.query(
            "select count(*) from pg_index where indrelid = 'funnel.int_friction_reached'::regclass"
        ).scalar(Int.self) == 1, "the key serves the lookups by user: no second index")
        let added = try connection.query("""
            insert into funnel.int_friction_reached (app_id, screen, user_id) values ('a', 'welcome', 'u2'), ('a', 'welcome', 'u1')
            on conflict do nothing returning user_id
            """).map { try $0.decode(String.self, at: 0) }
        #expect(added == ["u1"], "a row already reached is not stored twice")
    }

    @Test("0055 turns the marts' money into numeric from the stored doubles and makes the dash_* views on them again, granted")
    func moneyColumnsNumeric() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try Migrator(migrations: Migration.all.filter { $0.version < 55 }).migrate(connection)
        try connection.execute("""
            set search_path = funnel;
            insert into fct_networks (app_id, network, installs, paid_installs, spend, cpi, ltv_d7, verdict, reason)
            values ('a', 'adnova', 3, 3, 16191.929999999997, 5397.31, 0.09999999999999999, 'hold', 'r');
            insert into fct_ltv (app_id, network, day, projected, cohorts, installs, revenue, ltv, spend, roas)
            values ('a', 'adnova', 0, false, 1, 3, 0.30000000000000004, 0.09999999999999999, 1619.193, 0.5);
            insert into fct_cpi (app_id, date, network, campaign, country, spend, impressions, clicks, installs,
                                 paid_installs, cpi, blended_cpi)
            values ('a', '2024-03-01', 'adnova', 'c1', 'all', 1619.193, 0, 0, 3, 3, 539.731, 539.731);
            insert into fct_kfactor (app_id, network, cohorts, cohort_size, invites_sent, viral_installs, cpi, viral_adjusted_cpi)
            values ('a', 'adnova', 1, 3, 0, 0, 5397.31, 5397.31);
            """)
        try Migrator().migrate(connection)
        #expect(try connection.query("""
            select concat_ws(' ', n.spend, n.cpi, n.ltv_d7, l.revenue, l.ltv, l.spend, c.spend, c.cpi, k.viral_adjusted_cpi)
            from funnel.fct_networks n, funnel.fct_ltv l, funnel.fct_cpi c, funnel.fct_kfactor k
            """).scalar(String.self) == "16191.930000 5397.31 0.1 0.300000 0.1 1619.193000 1619.193000 539.731 5397.31")
        let types = try connection.query("""
            select table_name || '.' || column_name || ' ' || data_type from information_schema.columns
            where table_schema = 'funnel' and table_name in ('dash_acquisition', 'dash_kfactor', 'dash_ltv_cpi', 'dash_networks')
              and column_name in ('spend', 'cpi', 'ltv_high', 'ltv_d180_low', 'viral_adjusted_cpi', 'ltv_over_cpi', 'roas')
            order by 1
            """).map { try $0.decode(String.self, at: 0) }
        #expect(types == [
            "dash_acquisition.cpi numeric", "dash_acquisition.spend numeric", "dash_kfactor.cpi numeric",
            "dash_kfactor.viral_adjusted_cpi numeric", "dash_ltv_cpi.cpi numeric", "dash_ltv_cpi.ltv_high numeric",
            "dash_ltv_cpi.ltv_over_cpi double precision", "dash_ltv_cpi.roas double precision",
            "dash_networks.cpi numeric", "dash_networks.ltv_d180_low numeric", "dash_networks.spend numeric",
        ])
        for view in ["dash_acquisition", "dash_ltv_cpi", "dash_networks", "dash_kfactor"] {
            #expect(try connection.query("select has_table_privilege('funnel_dashboard', $1, 'select')", ["funnel.\(view)"])
                .scalar(Bool.self), "\(view) is granted to funnel_dashboard again")
        }
        #expect(try connection.query("select count(*) from funnel.dash_acquisition").scalar(Int.self) == 1)
    }

    @Test("0050 keys the stored events of each kind, so an event stored before it is still a duplicate")
    func eventKeysFromStoredRows() throws {
        let settings = try TestCluster.freshDatabase()
        let connection = try settings.connect()
        try Migrator(migrations: Migration.all.filter { $0.version < 50 }).migrate(connection)
        try connection.execute("""
            set search_path = funnel;
            select ensure_month_partitions('raw_opens', '2024-03-01', '2024-04-30');
            select ensure_month_partitions('raw_ux', '2024-03-01', '2024-03-31');
            insert into raw_opens (event_id, app_id, user_id, opened_at, file_id)
            values ('o1', 'app', 'u1', '2024-03-02 08:00+00', 1), ('o2', 'app', 'u1', '2024-04-02 08:00+00', 1),
                   ('o1', 'other', 'u9', '2024-03-05 08:00+00', 1);
            insert into raw_ux (event_id, app_id, user_id, session_id, occurred_at, screen, type, file_id)
            values ('x1', 'app', 'u1', 's1', '2024-03-02 08:00+00', 'signup', 'tap', 1);
            """)
        try Migrator().migrate(connection)
        let keys = try connection.query("""
            select string_agg(app_id || '/' || event_id, ' ' order by app_id, event_id) from funnel.raw_opens_keys
            union all
            select string_agg(app_id || '/' || event_id, ' ') from funnel.raw_ux_keys
            """).map { try $0.decode(String?.self, at: 0) }
        #expect(keys == ["app/o1 app/o2 other/o1", "app/x1"])
        #expect(try connection.query("""
            select count(*) from pg_constraint
            where contype = 'p' and conrelid = any (array['funnel.raw_opens', 'funnel.raw_ux']::regclass[])
            """).scalar(Int.self) == 0, "the raw tables' own keys are gone")

        // The real loader: o2 (stored in April before the migration) comes again with another
        // time and is skipped; o3 is new, and o3 twice in the file counts once.
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-keys")
        let url = directory.appending(path: "opens-1.csv")
        try """
            event_id,app_id,user_id,opened_at
            o2,app,u1,2024-03-20T08:00:00Z
            o3,app,u1,2024-03-21T08:00:00Z
            o3,app,u1,2024-03-21T08:00:00Z

            """.write(to: url, atomically: true, encoding: .utf8)
        var logger = Logger(label: "test.ingest")
        logger.logLevel = .critical
        let reports = try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 1)
            .run(files: [url.path], stop: StopFlag(), progress: IngestProgress(), logger: logger)
        #expect(reports.map(\.status) == [.loaded])
        #expect(reports.map(\.counts.rowsLoaded) == [1])
        #expect(reports.map(\.counts.duplicates) == [2])
        #expect(try connection.query("select string_agg(event_id || '@' || opened_at::date, ' ' order by event_id, opened_at) from funnel.raw_opens where app_id = 'app'")
            .scalar(String.self) == "o1@2024-03-02 o2@2024-04-02 o3@2024-03-21")
        #expect(try connection.query("select count(*) from funnel.raw_opens_keys").scalar(Int.self) == 4)
    }

    @Test("the seeded currency rates are the generator's reference rates")
    func currencyRatesMatchReference() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        let seeded = try connection.query("select currency, usd_per_unit from currency_rates").reduce(into: [String: Double]()) {
            $0[try $1.decode(String.self, at: 0)] = try $1.decode(Double.self, at: 1)
        }
        #expect(seeded == ReferenceRates.usdPerUnit)
    }

    @Test("0068 takes over what an existing database was computed under: the metrics' fingerprint, file and settings, and friction's day rule")
    func computedUnderTakesOverTheRecords() throws {
        let connection = try TestCluster.freshDatabase().connect()
        // A database of the newest schema but 0068 and 0114, as an upgrade finds it (0080 applied before).
        try Migrator(migrations: Migration.all.filter { $0.version != 68 && $0.version != 114 }).migrate(connection)
        try connection.execute("""
            insert into funnel.compute_settings (app_id, time_zone, day_rule, onboarding_step, window_days,
                purchase_window_days, regular_opens, regular_days, revenue_share, kfactor_window_days, max_day,
                brackets, double_down_ratio, cut_ratio, config_fingerprint)
            values ('', 'Europe/Berlin', 'hours24', 'onboarding_complete', 7, 7, 3, 3, 0.7, 7, 30, '{}', 1.5, 0.5, 'fp-b');
            insert into funnel.compute_state (app_id, data_through_date, config_fingerprint)
            values ('a', '2024-05-01', 'fp-b'), ('b', '2024-05-01', 'fp-b');
            insert into funnel.compute_configuration (source, settings, fingerprint, run_id)
            values ('/etc/funnel.toml', '[{"key": "time_zone", "value": "Europe/Berlin"}]', 'fp-b', 4);
            insert into funnel.friction_day_rule (time_zone, day_rule) values ('UTC', 'calendar');
            """)
        try Migrator().migrate(connection)
        let rows = try connection.query("""
            select lane || ' ' || coalesce(fingerprint, '-') || ' ' || coalesce(source, '-') || ' '
                   || coalesce(settings->0->>'value', '-') || ' ' || time_zone || ' ' || day_rule || ' '
                   || coalesce(run_id::text, '-')
            from funnel.computed_under order by lane
            """).map { try $0.decode(String.self, at: 0) }
        #expect(rows == ["friction - - - UTC calendar -",
                         "metrics fp-b /etc/funnel.toml Europe/Berlin Europe/Berlin hours24 4"])
        #expect(try connection.query("""
            select to_regclass('funnel.compute_configuration') is null and to_regclass('funnel.friction_day_rule') is null
            """).scalar(Bool.self))
    }

    @Test("0068 leaves a value no configuration has when apps were computed under different ones, so the next compute rebuilds")
    func computedUnderKeepsAMixedStateStale() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try Migrator(migrations: Migration.all.filter { $0.version != 68 && $0.version != 114 }).migrate(connection)
        try connection.execute("""
            insert into funnel.compute_settings (app_id, time_zone, day_rule, onboarding_step, window_days,
                purchase_window_days, regular_opens, regular_days, revenue_share, kfactor_window_days, max_day,
                brackets, double_down_ratio, cut_ratio, config_fingerprint)
            values ('', 'UTC', 'calendar', 'onboarding_complete', 7, 7, 3, 3, 0.7, 7, 30, '{}', 1.5, 0.5, 'fp-b');
            insert into funnel.compute_state (app_id, data_through_date, config_fingerprint)
            values ('a', '2024-05-01', 'fp-a'), ('b', '2024-05-01', 'fp-b');
            """)
        try Migrator().migrate(connection)
        let fingerprint = try connection.query("select fingerprint from funnel.computed_under where lane = 'metrics'")
            .scalar(String.self)
        #expect(fingerprint != "fp-a" && fingerprint != "fp-b")
        #expect(try connection.query("select count(*) from funnel.computed_under where lane = 'friction'").scalar(Int.self) == 0)
    }
}
