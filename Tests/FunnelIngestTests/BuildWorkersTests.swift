import Foundation
@testable import FunnelIngest
import PostgresClient
import Testing
import TestSupport

/// The parallel workers a bulk merge's index builds may take when the server shares the loader's
/// processors (``FileLoader/buildWorkers``): half the processors a build, leader included, and
/// never more than the server allows.
@Suite("Parallel workers of the bulk merge's index builds")
struct BuildWorkersTests {
    @Test("each of two builds at once gets half the processors, its leader included")
    func cap() {
        #expect([1, 2, 3, 4, 8, 64].map { FileLoader.buildWorkerCap(processors: $0) } == [0, 0, 0, 1, 3, 31])
    }

    @Test("a loader on this machine's server caps its builds, within the transaction, never above the server")
    func applied() throws {
        let fixture = try LoaderFixture()
        let connection = fixture.connection
        let loader = try FileLoader(connection: connection, workerID: "w", leaseSeconds: 60)
        // The test cluster is reached through its Unix socket: the server shares this machine.
        #expect(loader.buildWorkers == FileLoader.buildWorkerCap(processors: ProcessInfo.processInfo.activeProcessorCount))
        let server = try fixture.count("select current_setting('max_parallel_maintenance_workers')::int")
        #expect(server > 0)
        try connection.execute("begin")
        let capped = try FileLoader.capBuildWorkers(connection, at: server + 5, local: true)
        let none = try FileLoader.capBuildWorkers(connection, at: 0, local: true)
        let inForce = try connection.query("show max_parallel_maintenance_workers")[0].decode(String.self, at: 0)
        try connection.execute("commit")
        #expect(capped == server)
        #expect(none == 0)
        #expect(inForce == "0")
        #expect(try fixture.count("select current_setting('max_parallel_maintenance_workers')::int") == server)
    }
}
