import Foundation
import FunnelCompute
public import PostgresClient

/// The local Citus cluster the Citus tests share (a coordinator and two workers, see
/// `CitusCluster`), in a temporary directory, started on first use and stopped when the test
/// process exits. Tests that need it are enabled only when `isAvailable`: without the Citus
/// extension (`make citus`) they are skipped, and `make test` lists them with that reason.
public enum CitusTestCluster {
    /// Whether the Citus extension is installed, so the Citus tests can run.
    public static var isAvailable: Bool { CitusCluster.isInstalled() }

    /// The shared cluster (started lazily, once per process).
    public static var shared: CitusCluster {
        get throws { try sharedCluster.get() }
    }

    private static let sharedCluster: Result<CitusCluster, any Error> = Result {
        _ = try TestCluster.shared  // the same logging set-up and temporary root
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-citus")
        let cluster = CitusCluster(directory: directory, workerCount: 2)
        clusterToStop.withLock { $0 = cluster }
        atexit {
            CitusTestCluster.clusterToStop.withLock { cluster in
                guard let cluster else { return }
                _ = try? cluster.stop()
                try? FileManager.default.removeItem(at: cluster.directory)
            }
        }
        try cluster.start(database: "postgres")
        return cluster
    }

    private static let clusterToStop = Locked<CitusCluster?>(nil)
    private static let preparing = Locked<Void>(())

    /// A new database on every node of the shared cluster, with the citus extension and the
    /// workers registered; migrated (and so distributed) when asked.
    public static func freshDatabase(migrated: Bool = false) throws -> ConnectionSettings {
        let cluster = try shared
        let name = "c_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        // One database at a time: creating the extension and registering the nodes for two new
        // databases at once has failed a worker connection Citus marks as essential.
        try preparing.withLock { _ in try cluster.prepare(database: String(name)) }
        let settings = ConnectionSettings(conninfo: cluster.conninfo(database: String(name)),
                                          searchPath: ["funnel", "public"])
        if migrated { try Migrator().migrate(try settings.connect()) }
        return settings
    }
}
