public import Foundation
import FunnelCompute
public import PostgresClient

/// The one real PostgreSQL server the whole test run shares: the embedded cluster in a temporary
/// directory, started on first use and stopped when the test process exits. Each test asks for
/// its own fresh database on it, so tests run in parallel without seeing each other's rows.
public enum TestCluster {
    /// The shared cluster (started lazily, once per process).
    public static var shared: EmbeddedCluster {
        get throws { try sharedCluster.get() }
    }

    private static let sharedCluster: Result<EmbeddedCluster, any Error> = Result {
        let directory = try makeTemporaryDirectory(prefix: "funnel-test-cluster")
        let cluster = EmbeddedCluster(directory: directory)
        try cluster.start()
        clusterToStop.withLock { $0 = cluster }
        atexit {
            TestCluster.clusterToStop.withLock { cluster in
                guard let cluster else { return }
                _ = try? cluster.stop()
                try? FileManager.default.removeItem(at: cluster.directory)
            }
        }
        return cluster
    }

    private static let clusterToStop = Locked<EmbeddedCluster?>(nil)

    /// A new, empty database on the shared cluster; returns connection settings for it.
    public static func freshDatabase(migrated: Bool = false, function: String = #function) throws -> ConnectionSettings {
        let cluster = try shared
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        let admin = try PostgresConnection(connecting: cluster.conninfo(database: "postgres"))
        try admin.execute("create database \(try admin.quoteIdentifier(String(name)))")
        let settings = ConnectionSettings(conninfo: cluster.conninfo(database: String(name)),
                                          searchPath: ["funnel", "public"])
        if migrated {
            let connection = try settings.connect()
            try Migrator().migrate(connection)
        }
        return settings
    }

    /// A temporary directory that postgres (run as the `postgres` account when we are root)
    /// can traverse.
    public static func makeTemporaryDirectory(prefix: String) throws -> URL {
        let directory = URL(fileURLWithPath: "/tmp").appending(path: "\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        return directory
    }
}

/// A value behind a lock, for the few process-wide values tests share.
public final class Locked<Value>: @unchecked Sendable {
    // Safe: every access to `value` goes through `lock`.
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
