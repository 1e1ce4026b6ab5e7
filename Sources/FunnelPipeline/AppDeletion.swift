public import Foundation
import FunnelCompute
import FunnelSQL
public import PostgresClient

/// The apps a database holds (`funnel apps list`), from sql/bookkeeping/apps/known_apps.sql.
public struct KnownApp: Encodable, Sendable, Equatable {
    public let app: String
    public let installs: Int64
    /// The first and last install day (UTC); nil for an app without installs.
    public let firstInstall: String?
    public let lastInstall: String?
    public let spendRows: Int64
    /// What the last compute covered, and when; nil before a compute.
    public let dataThroughDate: String?
    public let computedAt: String?

    /// Every app with installs, ad spend or computed metrics, in name order.
    public static func list(_ connection: PostgresConnection) throws -> [KnownApp] {
        try connection.query(SQLCatalog.text("bookkeeping/apps/known_apps.sql")).map { row in
            KnownApp(
                app: try row.decode(String.self, column: "app_id"),
                installs: try row.decode(Int64.self, column: "installs"),
                firstInstall: try row.decode(String?.self, column: "first_install"),
                lastInstall: try row.decode(String?.self, column: "last_install"),
                spendRows: try row.decode(Int64.self, column: "spend_rows"),
                dataThroughDate: try row.decode(String?.self, column: "data_through_date"),
                computedAt: try row.decode(String?.self, column: "computed_at"))
        }
    }
}

/// `funnel apps delete APP`: removes every row of one app from every table that has an `app_id`
/// (raw, intermediate, marts, bookkeeping), in one transaction, holding the compute and friction
/// locks so no compute reads the app half-deleted. The ledgers then forget the input files whose
/// rows were all that app's, so ingesting such a file again loads it again; a file that also
/// holds another app's rows stays recorded as loaded, and the outcome names it.
public struct AppDeletion {
    public let app: String

    public init(app: String) {
        self.app = app
    }

    /// What the deletion removed.
    public struct Outcome: Encodable, Sendable {
        public struct Table: Encodable, Sendable {
            public let table: String
            public let rows: Int
        }

        public struct File: Encodable, Sendable {
            public let fileID: Int64
            public let path: String?
        }

        public let app: String
        /// Tables rows were deleted from, with how many; tables without the app's rows left out.
        public let tables: [Table]
        /// Input files the ledgers forgot: ingesting them again loads them again.
        public let forgottenFiles: [File]
        /// Input files that also hold other apps' rows: still recorded as loaded.
        public let sharedFiles: [File]

        public var rowsDeleted: Int { tables.reduce(0) { $0 + $1.rows } }
    }

    /// Deletes the app. Returns nil, having changed nothing, when a compute holds its lock.
    public func run(_ connection: PostgresConnection) throws -> Outcome? {
        try connection.withAdvisoryLockIfFree(ComputeEngine.lockKey) {
            try connection.withAdvisoryLockIfFree(ComputeJob.frictionLockKey) {
                try connection.transaction { connection in try delete(connection) }
            }
        } ?? nil
    }

    private func delete(_ connection: PostgresConnection) throws -> Outcome {
        try connection.execute("""
            create temporary table deleted_app_files (file_id bigint primary key, shared boolean not null default false)
            on commit drop
            """)
        let tables = try connection.query(SQLCatalog.text("bookkeeping/apps/app_tables.sql")).map { row in
            (name: try row.decode(String.self, column: "table_name"), hasFileID: try row.decode(Bool.self, column: "has_file_id"))
        }
        var deleted: [Outcome.Table] = []
        for table in tables {
            let name = try connection.quoteIdentifier(table.name)
            if table.hasFileID {
                _ = try connection.query("""
                    insert into deleted_app_files (file_id)
                    select distinct file_id from \(name) where app_id = $1 and file_id is not null
                    on conflict do nothing
                    """, [app])
            }
            let result = try connection.query("delete from \(name) where app_id = $1", [app])
            if result.affectedRows > 0 { deleted.append(.init(table: table.name, rows: result.affectedRows)) }
        }
        for table in tables where table.hasFileID {
            let name = try connection.quoteIdentifier(table.name)
            _ = try connection.query("""
                update deleted_app_files d set shared = true
                where not d.shared and exists (select 1 from \(name) t where t.file_id = d.file_id)
                """)
        }
        var forgotten: [Outcome.File] = []
        var shared: [Outcome.File] = []
        for row in try connection.query(SQLCatalog.text("bookkeeping/apps/app_files.sql")) {
            let file = Outcome.File(fileID: try row.decode(Int64.self, column: "file_id"),
                                    path: try row.decode(String?.self, column: "path"))
            if try row.decode(Bool.self, column: "shared") { shared.append(file) } else { forgotten.append(file) }
        }
        _ = try connection.query(SQLCatalog.text("bookkeeping/apps/forget_app_files.sql"))
        return Outcome(app: app, tables: deleted, forgottenFiles: forgotten, sharedFiles: shared)
    }
}
