import Foundation
public import PostgresClient

/// The scratch databases benchmarks make beside the selected one, and the checkpoint that ends
/// their untimed preparation.
public enum ScratchDatabase {
    /// Writes out what the untimed preparation dirtied (a vacuum of every table), as the
    /// checkpointer would long have done before the next day's run; otherwise the timed run can
    /// share the disk with that write-out (`bench daily` without it: the day's ingest 15.1 s in one
    /// run, against 3.1-3.7 s after a checkpoint). Needs superuser or pg_checkpoint; false without.
    public static func checkpoint(_ connection: PostgresConnection) -> Bool {
        (try? connection.execute("checkpoint")) != nil
    }

    /// Checkpoints after a bench's untimed preparation and says, for its log line, what that
    /// stands for: what autovacuum and the checkpointer do, or autovacuum alone without the privilege.
    public static func checkpointAfterPreparation(_ connection: PostgresConnection) -> String {
        checkpoint(connection) ? "then a checkpoint: what autovacuum and the checkpointer do"
                               : "no CHECKPOINT privilege: what autovacuum does"
    }

    /// The same connection settings pointed at another database on the same server.
    public static func conninfo(_ conninfo: String, database: String) -> String {
        if conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://"),
           var components = URLComponents(string: conninfo) {
            components.path = "/" + database
            return components.string ?? conninfo
        }
        return conninfo + " dbname='\(database)'"
    }
}
