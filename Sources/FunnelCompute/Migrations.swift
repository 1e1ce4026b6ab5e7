import FunnelSQL
public import Logging
public import PostgresClient

/// One numbered schema migration from `sql/migrations/NNNN_name.sql`, carried in the binary.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    /// Every embedded migration, in version order. File names that do not start with a number
    /// are a packaging bug and trap.
    public static var all: [Migration] {
        SQLCatalog.files(under: "migrations").map { file in
            let fileName = String(file.path.split(separator: "/").last!)
            let stem = fileName.hasSuffix(".sql") ? String(fileName.dropLast(4)) : fileName
            let digits = stem.prefix { $0.isNumber }
            guard let version = Int(digits), !digits.isEmpty else {
                preconditionFailure("sql/\(file.path): migration names start with a version number")
            }
            return Migration(version: version, name: stem, sql: file.text)
        }
        .sorted { $0.version < $1.version }
    }
}

/// One re-runnable file of `sql/dashboards/`: the current definition of a `dash_*` view
/// (`create or replace view`, and its grant to the read-only dashboard role). The migrations made
/// the views first and stay as released; these files are applied after them.
public struct DashboardView: Sendable, Equatable {
    /// The file's name without `.sql`: the view's name.
    public let name: String
    public let sql: String

    /// Every embedded dashboards file, by name.
    public static var all: [DashboardView] {
        SQLCatalog.files(under: "dashboards").map { file in
            let fileName = String(file.path.split(separator: "/").last!)
            return DashboardView(name: fileName.hasSuffix(".sql") ? String(fileName.dropLast(4)) : fileName, sql: file.text)
        }
        .sorted { $0.name < $1.name }
    }
}

/// Why `funnel migrate` refused to run.
public enum MigrationError: Error, CustomStringConvertible, Sendable {
    /// An applied migration's text differs from the one that was applied.
    case changedAfterApply(name: String, recordedChecksum: String, currentChecksum: String)
    /// The database has migrations this binary does not know: it was migrated by a newer funnel.
    case databaseIsNewer(version: Int, name: String)

    public var description: String {
        switch self {
        case .changedAfterApply(let name, let recorded, let current):
            "migration \(name) was changed after it was applied (checksum \(recorded.prefix(12)) recorded, "
                + "\(current.prefix(12)) now). Released migrations are never edited: restore the original and put "
                + "the change in a new migration"
        case .databaseIsNewer(let version, let name):
            "the database has migration \(version) (\(name)), which this funnel does not know: it was set up by a "
                + "newer funnel. Upgrade funnel before running it against this database"
        }
    }
}

/// Applies the embedded migrations in order, each in its own transaction, and records each with
/// a SHA-256 checksum in `funnel.schema_migrations`. Then it applies the dashboards files
/// (`sql/dashboards/`): all of them when a migration was applied (a migration may have dropped a
/// view to change a column it reads), else those whose checksum differs from the one recorded in
/// `dashboard_views`. A session advisory lock makes concurrent runs safe: the second waits, then
/// finds nothing left to do.
public struct Migrator: Sendable {
    public static let lockKey = AdvisoryLockKey("funnel.migrate")
    public let migrations: [Migration]
    /// The dashboards files applied after the migrations: none for a migrator that stops short of
    /// the newest schema (the views read it).
    public let dashboards: [DashboardView]

    public init(migrations: [Migration] = Migration.all) {
        self.migrations = migrations
        self.dashboards = migrations == Migration.all ? DashboardView.all : []
    }

    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Migrations applied by this run, in order.
        public var applied: [String]
        /// Migrations found already applied.
        public var alreadyApplied: Int
        /// Dashboard views this run made (again), by name.
        public var views: [String] = []
        /// On a database with the citus extension: how many funnel tables Citus holds (distributed
        /// or reference) after the run; nil on plain PostgreSQL.
        public var citusTables: Int? = nil
    }

    /// Brings the schema up to date. Refuses (before applying anything) when an applied
    /// migration was edited or the database is newer than this binary.
    @discardableResult
    public func migrate(_ connection: PostgresConnection, logger: Logger = Logger(label: "funnel.migrate")) throws -> Report {
        try connection.withAdvisoryLock(Self.lockKey) {
            try connection.execute("""
                create schema if not exists \(try connection.quoteIdentifier(FunnelSchema.name));
                create table if not exists \(try connection.quoteIdentifier(FunnelSchema.name)).schema_migrations (
                    version integer primary key,
                    name text not null,
                    checksum_sha256 text not null,
                    applied_at timestamptz not null default now()
                )
                """)
            let schema = try connection.quoteIdentifier(FunnelSchema.name)
            let applied = try connection.query("select version, name, checksum_sha256 from \(schema).schema_migrations order by version")
            var recorded: [Int: (name: String, checksum: String)] = [:]
            for row in applied {
                recorded[try row.decode(Int.self, at: 0)] = (try row.decode(String.self, at: 1), try row.decode(String.self, at: 2))
            }
            let known = Set(migrations.map(\.version))
            if let unknown = recorded.keys.sorted().first(where: { !known.contains($0) }) {
                throw MigrationError.databaseIsNewer(version: unknown, name: recorded[unknown]!.name)
            }
            var pending: [(Migration, String)] = []
            for migration in migrations {
                let checksum = try Self.checksum(migration.sql, on: connection)
                if let record = recorded[migration.version] {
                    guard record.checksum == checksum else {
                        throw MigrationError.changedAfterApply(name: migration.name, recordedChecksum: record.checksum,
                                                               currentChecksum: checksum)
                    }
                } else {
                    pending.append((migration, checksum))
                }
            }
            for (migration, checksum) in pending {
                logger.info("applying migration", metadata: ["migration.name": .string(migration.name)])
                try connection.transaction { connection in
                    try connection.execute("set local search_path = \(schema), public")
                    try connection.execute(migration.sql)
                    try connection.query(
                        "insert into \(schema).schema_migrations (version, name, checksum_sha256) values ($1, $2, $3)",
                        [migration.version, migration.name, checksum])
                }
            }
            let views = try applyDashboards(connection, all: !pending.isEmpty)
            let distributed = try distributeOnCitus(connection)
            return Report(applied: pending.map(\.0.name), alreadyApplied: migrations.count - pending.count, views: views,
                          citusTables: distributed)
        }
    }

    /// Applies the dashboards files (every one, or those changed since they were recorded), each
    /// in its own transaction with its record.
    private func applyDashboards(_ connection: PostgresConnection, all: Bool) throws -> [String] {
        let changed = Set(try pendingDashboards(connection))
        let schema = try connection.quoteIdentifier(FunnelSchema.name)
        var applied: [String] = []
        for view in dashboards where all || changed.contains(view.name) {
            let checksum = try Self.checksum(view.sql, on: connection)
            try connection.transaction { connection in
                try connection.execute("set local search_path = \(schema), public")
                try connection.execute(view.sql)
                try connection.query("""
                    insert into \(schema).dashboard_views (name, checksum_sha256) values ($1, $2)
                    on conflict (name) do update set checksum_sha256 = excluded.checksum_sha256, applied_at = now()
                    """, [view.name, checksum])
            }
            applied.append(view.name)
        }
        return applied
    }

    /// On a database with the citus extension, hands the tables to Citus as `sql/citus/distribute.sql`
    /// lays them out (tables Citus already holds are left alone); returns how many funnel tables
    /// Citus holds. On plain PostgreSQL, does nothing and returns nil: the migrations stay the same
    /// on both engines.
    public func distributeOnCitus(_ connection: PostgresConnection) throws -> Int? {
        guard try connection.hasExtension("citus"), migrations == Migration.all else { return nil }
        try connection.transaction { connection in
            try connection.execute("set local search_path = \(try connection.quoteIdentifier(FunnelSchema.name)), public")
            try connection.execute(SQLCatalog.text("citus/distribute.sql"))
        }
        return try connection.query("""
            select count(*) from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
            join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and not c.relispartition
            """, [FunnelSchema.name]).scalar(Int.self)
    }

    /// The dashboards files not applied as they are now: new, or changed since they were recorded.
    public func pendingDashboards(_ connection: PostgresConnection) throws -> [String] {
        guard !dashboards.isEmpty else { return [] }
        let exists = try connection.query("select to_regclass($1) is not null", ["\(FunnelSchema.name).dashboard_views"])
            .scalar(Bool.self)
        guard exists else { return dashboards.map(\.name) }
        let schema = try connection.quoteIdentifier(FunnelSchema.name)
        return try connection.query("""
            select f.name
            from unnest($1::text[], $2::text[]) as f(name, body)
            left join \(schema).dashboard_views v on v.name = f.name
            where v.checksum_sha256 is distinct from encode(sha256(convert_to(f.body, 'UTF8')), 'hex')
            order by f.name
            """, [dashboards.map(\.name), dashboards.map(\.sql)]).map { try $0.decode(String.self, at: 0) }
    }

    /// The migrations not yet applied to the database (for `funnel migrate --status`).
    public func pending(_ connection: PostgresConnection) throws -> [Migration] {
        let schema = try connection.quoteIdentifier(FunnelSchema.name)
        let exists = try connection.query("select to_regclass($1) is not null", ["\(FunnelSchema.name).schema_migrations"])
            .scalar(Bool.self)
        guard exists else { return migrations }
        let versions = Set(try connection.query("select version from \(schema).schema_migrations").map {
            try $0.decode(Int.self, at: 0)
        })
        return migrations.filter { !versions.contains($0.version) }
    }

    /// True when `migrate` has work to do on the database: a migration or a dashboards file.
    public func needsRun(_ connection: PostgresConnection) throws -> Bool {
        try !pending(connection).isEmpty || !pendingDashboards(connection).isEmpty
    }

    /// SHA-256 of the migration text, computed by the server (no crypto dependency in the client).
    static func checksum(_ sql: String, on connection: PostgresConnection) throws -> String {
        try connection.query("select encode(sha256(convert_to($1, 'UTF8')), 'hex')", [sql]).scalar(String.self)
    }
}
