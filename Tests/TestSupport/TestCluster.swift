public import Foundation
import FunnelCompute
import Logging
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
        quietLogs()
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
        try freshDatabase(on: try shared, migrated: migrated)
    }

    /// A new, empty database on `cluster` (a test's own, which it may stop or crash).
    public static func freshDatabase(on cluster: EmbeddedCluster, migrated: Bool) throws -> ConnectionSettings {
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

    /// Logs at warning and above only: the tests' migrations and cluster starts would otherwise
    /// print thousands of info lines. Done once, before the first cluster start.
    private static func quietLogs() {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
    }

    /// `/tmp/funnel-tests-PID`: every temporary directory of this test process is made in it, and
    /// it is removed when the process exits (after the shared cluster stops), so a test that does
    /// not clean up after itself leaves nothing behind. Folders of test processes that died
    /// without exiting are removed on the way.
    private static let temporaryRoot: Result<URL, any Error> = Result {
        let tmp = URL(fileURLWithPath: "/tmp")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []
        where name.hasPrefix("funnel-tests-") {
            if let pid = Int32(name.dropFirst("funnel-tests-".count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: tmp.appending(path: name))
            }
        }
        let root = tmp.appending(path: "funnel-tests-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        atexit {
            if case .success(let root) = TestCluster.temporaryRoot { try? FileManager.default.removeItem(at: root) }
        }
        return root
    }

    /// A temporary directory that postgres (run as the `postgres` account when we are root)
    /// can traverse, inside this process's `temporaryRoot`.
    public static func makeTemporaryDirectory(prefix: String) throws -> URL {
        let directory = try temporaryRoot.get().appending(path: "\(prefix)-\(UUID().uuidString.prefix(8))")
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
