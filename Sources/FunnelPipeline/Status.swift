import FunnelCompute
public import FunnelReports
public import PostgresClient

extension DatabaseStatus {
    /// What `funnel status` shows: what is loaded and computed, and what waits, against the
    /// newest schema this binary carries.
    public static func read(_ connection: PostgresConnection, database: String) throws -> DatabaseStatus {
        try read(connection, database: database, schema: Migrator().migrations.last?.name ?? "",
                 pendingWork: try ComputeLedger(connection).hasPendingWork())
    }
}
