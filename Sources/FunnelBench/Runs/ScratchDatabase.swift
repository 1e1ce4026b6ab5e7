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

    /// On a Citus coordinator (the selected database has the citus extension), makes the scratch
    /// database `name` (already created on the coordinator) a Citus database like the selected one:
    /// the database and the extension on every worker of `pg_dist_node`, the coordinator and the
    /// workers registered, so `funnel migrate` distributes its tables. Returns the workers'
    /// conninfos for `dropOnWorkers`; empty on plain PostgreSQL.
    public static func extendCitus(_ admin: PostgresConnection, scratch: ConnectionSettings, name: String) throws -> [String] {
        guard try admin.hasExtension("citus") else { return [] }
        let user = try admin.query("select current_user::text").scalar(String.self)
        let nodes = try admin.query("select nodename, nodeport, groupid from pg_dist_node where isactive order by groupid")
            .map { (try $0.decode(String.self, at: 0), try $0.decode(Int.self, at: 1), try $0.decode(Int.self, at: 2)) }
        func conninfo(_ host: String, _ port: Int, _ database: String) -> String {
            func quoted(_ value: String) -> String {
                "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
            }
            return "host=\(quoted(host)) port=\(port) dbname=\(quoted(database)) user=\(quoted(user))"
        }
        var workers: [String] = []
        for (host, port, group) in nodes where group > 0 {
            let workerAdmin = try PostgresConnection(connecting: conninfo(host, port, "postgres"))
            try workerAdmin.execute("create database \(try workerAdmin.quoteIdentifier(name))")
            workers.append(conninfo(host, port, "postgres"))
            try PostgresConnection(connecting: conninfo(host, port, name)).execute("create extension citus")
        }
        let connection = try scratch.connect()
        try connection.execute("create extension citus")
        for (host, port, group) in nodes {
            if group == 0 {
                try connection.query("select citus_set_coordinator_host($1, $2)", [host, port])
            } else {
                try connection.query("select citus_add_node($1, $2)", [host, port])
            }
        }
        return workers
    }

    /// Drops the scratch database `name` on the workers `extendCitus` made it on.
    public static func dropOnWorkers(_ workers: [String], name: String) {
        for worker in workers {
            guard let admin = try? PostgresConnection(connecting: worker) else { continue }
            _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)")
        }
    }
}
