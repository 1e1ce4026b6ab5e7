public import Foundation
public import Logging

/// A local Citus cluster for tests and for trying funnel on distributed PostgreSQL: a coordinator
/// and `workerCount` workers, each an `EmbeddedCluster` (its own data directory and Unix socket,
/// no TCP port) under `directory` (`coordinator/`, `worker-1/`, ...), all started with
/// `shared_preload_libraries = 'citus'`. Needs the Citus extension installed into the server
/// PostgreSQL (`make citus`, or the Citus project's packages); docs/citus.md.
///
/// Citus knows its nodes by host and port: a node's host here is its socket directory, which
/// libpq takes for a Unix socket.
public struct CitusCluster: Sendable {
    public let directory: URL
    public let workerCount: Int

    public init(directory: URL, workerCount: Int) {
        self.directory = directory.standardizedFileURL
        self.workerCount = workerCount
    }

    /// Settings every node runs with. Multi-shard writes commit with two-phase commit, which
    /// needs prepared transactions on the workers. Three servers on one machine would each take a
    /// quarter of its memory for buffers (the single embedded cluster's share), so each takes
    /// 256 MB: the cluster is for tests and trying Citus, not for a day's load.
    static let nodeSettings = ["max_prepared_transactions": "100", "citus.node_conninfo": "'sslmode=prefer'",
                               "shared_buffers": "'256MB'"]

    public var coordinator: EmbeddedCluster {
        EmbeddedCluster(directory: directory.appending(path: "coordinator"), port: EmbeddedCluster.defaultPort,
                        preloadLibraries: ["citus"], extraSettings: Self.nodeSettings)
    }

    public var workers: [EmbeddedCluster] {
        (0..<workerCount).map { index in
            EmbeddedCluster(directory: directory.appending(path: "worker-\(index + 1)"),
                            port: EmbeddedCluster.defaultPort + 1 + index,
                            preloadLibraries: ["citus"], extraSettings: Self.nodeSettings)
        }
    }

    /// Whether the Citus extension is installed beside the PostgreSQL server programs funnel runs
    /// (`citus.so` in `lib/`, `citus.control` in the extension directory).
    public static func isInstalled() -> Bool {
        guard let binaries = try? PostgresBinaries.locate() else { return false }
        let root = binaries.directory.deletingLastPathComponent()
        let version = root.lastPathComponent
        let library = root.appending(path: "lib/citus.so").path
        let controls = ["/usr/share/postgresql/\(version)/extension/citus.control",
                        root.appending(path: "share/extension/citus.control").path]
        return FileManager.default.fileExists(atPath: library)
            && controls.contains { FileManager.default.fileExists(atPath: $0) }
    }

    /// Starts every node (creating it on first use) and makes `database` a Citus database on the
    /// coordinator with every worker added (see `prepare`).
    public func start(database: String = EmbeddedCluster.databaseName,
                      logger: Logger = Logger(label: "funnel.citus")) throws {
        guard Self.isInstalled() else { throw CitusClusterError.notInstalled }
        for node in [coordinator] + workers { try node.start(logger: logger) }
        try prepare(database: database)
    }

    /// Stops every node; true when one was running.
    @discardableResult
    public func stop(logger: Logger = Logger(label: "funnel.citus")) throws -> Bool {
        var stopped = false
        for node in workers + [coordinator] where try node.stop(logger: logger) { stopped = true }
        return stopped
    }

    /// Makes `database` (created when missing) on every node, with the citus extension in it, and
    /// registers the coordinator and the workers in the coordinator's metadata. Idempotent.
    public func prepare(database: String) throws {
        for node in workers + [coordinator] {
            let admin = try PostgresConnection(connecting: node.conninfo(database: "postgres"))
            let exists = try admin.query("select count(*) from pg_database where datname = $1", [database]).scalar(Int.self) > 0
            if !exists { try admin.execute("create database \(try admin.quoteIdentifier(database))") }
            let connection = try PostgresConnection(connecting: node.conninfo(database: database))
            try connection.execute("create extension if not exists citus")
        }
        let connection = try PostgresConnection(connecting: coordinator.conninfo(database: database))
        try connection.query("select citus_set_coordinator_host($1, $2)",
                             [coordinator.socketDirectory.path, coordinator.port])
        for worker in workers {
            let known = try connection.query("select count(*) from pg_dist_node where nodename = $1 and nodeport = $2",
                                             [worker.socketDirectory.path, worker.port]).scalar(Int.self) > 0
            if !known {
                try connection.query("select citus_add_node($1, $2)", [worker.socketDirectory.path, worker.port])
            }
        }
    }

    /// libpq connection string for `database` on the coordinator (where clients connect).
    public func conninfo(database: String = EmbeddedCluster.databaseName) -> String {
        coordinator.conninfo(database: database)
    }
}

/// Why a Citus cluster could not start.
public enum CitusClusterError: Error, CustomStringConvertible, Sendable {
    case notInstalled

    public var description: String {
        switch self {
        case .notInstalled:
            "the Citus extension is not installed into the PostgreSQL server: install it from the Citus project's "
                + "packages (https://docs.citusdata.com/en/stable/installation/), or run `make citus` in funnel's "
                + "source tree when the vendored Citus source is there"
        }
    }
}
