import Foundation
import PostgresClient
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Each test here runs its own cluster in its own temporary directory (not the shared one), so
/// it can stop, crash and restart it.
@Suite("Embedded cluster", .serialized)
struct EmbeddedClusterTests {
    private func withCluster(_ body: (EmbeddedCluster) throws -> Void) throws {
        let cluster = EmbeddedCluster(directory: try TestCluster.makeTemporaryDirectory(prefix: "funnel-cluster"))
        defer {
            _ = try? cluster.stop()
            try? FileManager.default.removeItem(at: cluster.directory)
        }
        try body(cluster)
    }

    @Test("start creates the cluster once, stop stops it, and a restart keeps the data")
    func startStopRestart() throws {
        // pg_prewarm's autoprewarm whenever the server has the module.
        let binaries = try PostgresBinaries.locate()
        let hasPrewarm = binaries.hasModule("pg_prewarm")
        // Debian's server package ships the contrib modules, so there it must be on.
        if binaries.directory.path.hasPrefix("/usr/lib/postgresql/") { #expect(hasPrewarm) }
        try withCluster { cluster in
            #expect(cluster.status() == .notInitialized)
            #expect(try cluster.start() == .started(initialized: true))
            guard case .running = cluster.status() else {
                Issue.record("not running after start: \(cluster.status())")
                return
            }
            #expect(try cluster.start() == .alreadyRunning)
            try PostgresConnection(connecting: cluster.conninfo).execute("create table kept (n int); insert into kept values (7)")
            #expect(try cluster.stop())
            #expect(cluster.status() == .stopped)
            // With pg_prewarm, the pages the buffers held are recorded at shutdown, to be read back
            // on the next start.
            let recorded = FileManager.default.fileExists(
                atPath: cluster.dataDirectory.appending(path: "autoprewarm.blocks").path)
            #expect(recorded == hasPrewarm)
            #expect(try cluster.stop() == false)
            #expect(try cluster.start() == .started(initialized: false))
            let connection = try PostgresConnection(connecting: cluster.conninfo)
            #expect(try connection.query("select n from kept").scalar(Int.self) == 7)
            #expect(try connection.query("show listen_addresses").scalar(String.self) == "")
            // lz4 WAL compression whenever the server is built with it (its allowed values say so).
            let offersLZ4 = try connection.query(
                "select coalesce('lz4' = any(enumvals), false) from pg_settings where name = 'wal_compression'"
            ).scalar(Bool.self)
            #expect(try connection.query("show wal_compression").scalar(String.self) == (offersLZ4 ? "lz4" : "off"))
            // A quarter of the memory for the buffers (pg_settings counts them in 8 kB blocks).
            let buffersMB = try connection.query(
                "select setting::bigint * 8 / 1024 from pg_settings where name = 'shared_buffers'"
            ).scalar(Int.self)
            #expect(buffersMB == EmbeddedCluster.sharedBuffersMegabytes(memoryBytes: EmbeddedCluster.availableMemoryBytes()))
            #expect(try connection.query("show shared_preload_libraries").scalar(String.self) == (hasPrewarm ? "pg_prewarm" : ""))
            #expect(try PostgresConnection(connecting: cluster.url).query("select current_database()").scalar(String.self) == "funnel")
        }
    }

    @Test("shared_buffers is a quarter of the memory, between 128 MB and 8 GB")
    func sharedBuffersFollowMemory() {
        let gigabyte: UInt64 = 1 << 30
        #expect(EmbeddedCluster.sharedBuffersMegabytes(memoryBytes: 24 * gigabyte) == 6144)
        #expect(EmbeddedCluster.sharedBuffersMegabytes(memoryBytes: 2 * gigabyte) == 512)
        #expect(EmbeddedCluster.sharedBuffersMegabytes(memoryBytes: gigabyte / 4) == 128)
        #expect(EmbeddedCluster.sharedBuffersMegabytes(memoryBytes: 256 * gigabyte) == 8192)
        #expect(EmbeddedCluster.availableMemoryBytes() >= 128 << 20)
    }

    @Test("a stale postmaster.pid naming a dead or unrelated process does not stop a start")
    func stalePidFile() throws {
        try withCluster { cluster in
            try cluster.start()
            let pidFile = cluster.dataDirectory.appending(path: "postmaster.pid")
            let realContents = try String(contentsOf: pidFile, encoding: .utf8)
            try cluster.stop()
            var lines = realContents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for stalePID in [Int32(999_999), getpid()] {
                lines[0] = String(stalePID)
                try lines.joined(separator: "\n").write(to: pidFile, atomically: true, encoding: .utf8)
                #expect(try cluster.start() == .started(initialized: false), "pid \(stalePID)")
                #expect(try PostgresConnection(connecting: cluster.conninfo).query("select 1").scalar(Int.self) == 1)
                try cluster.stop()
            }
        }
    }

    @Test("a postmaster.pid naming a zombie postgres (killed, not yet reaped) does not stop the first start")
    func zombiePidFile() throws {
        try withCluster { cluster in
            try cluster.start()
            let pidFile = cluster.dataDirectory.appending(path: "postmaster.pid")
            let realContents = try String(contentsOf: pidFile, encoding: .utf8)
            try cluster.stop()
            // A postgres process that has exited and that we do not reap: a zombie, as a killed
            // postmaster is until its parent waits for it. It runs as the server's account, so
            // the new postmaster's kill(pid, 0) finds it, as it finds a real killed postmaster.
            let zombie = try Self.spawnZombiePostgres()
            defer { var status: Int32 = 0; waitpid(zombie, &status, 0) }
            var lines = realContents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[0] = String(zombie)
            try lines.joined(separator: "\n").write(to: pidFile, atomically: true, encoding: .utf8)
            #expect(cluster.status() == .stopped)
            #expect(try cluster.start() == .started(initialized: false))
            #expect(try PostgresConnection(connecting: cluster.conninfo).query("select 1").scalar(Int.self) == 1)
        }
    }

    /// Spawns `postgres --version` (as the `postgres` account when we are root) and waits until
    /// it is a zombie, without reaping it; the caller reaps it.
    static func spawnZombiePostgres() throws -> pid_t {
        let postgres = try PostgresBinaries.locate().postgres.path
        let argv = geteuid() == 0
            ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", postgres, "--version"]
            : [postgres, "--version"]
        var pointers = argv.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &pointers, environ)
        try #require(spawned == 0, "posix_spawn \(argv[0]): \(spawned)")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if let close = stat.lastIndex(of: ")"), stat[stat.index(after: close)...].hasPrefix(" Z") { break }
            usleep(10_000)
        }
        let comm = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        try #require(comm.hasPrefix("postgres"), "the zombie is named \(comm)")
        return pid
    }

    @Test("after the server is killed with SIGKILL, the first start brings it back")
    func recoversFromCrash() throws {
        try withCluster { cluster in
            try cluster.start()
            guard case .running(let pid) = cluster.status() else {
                Issue.record("not running")
                return
            }
            try PostgresConnection(connecting: cluster.conninfo).execute("create table kept (n int); insert into kept values (7)")
            kill(pid, SIGKILL)
            // No waiting: the killed postmaster may still be a zombie and its children still
            // running; the first start must cope with both.
            #expect(try cluster.start() == .started(initialized: false))
            #expect(try PostgresConnection(connecting: cluster.conninfo).query("select n from kept").scalar(Int.self) == 7)
        }
    }

    @Test("two starts at once on a new directory end with one running server")
    func concurrentStarts() throws {
        try withCluster { cluster in
            let outcomes = Locked<[Result<EmbeddedCluster.StartOutcome, any Error>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                let outcome = Result { try cluster.start() }
                outcomes.withLock { $0.append(outcome) }
            }
            let results = outcomes.withLock { $0 }.map { try? $0.get() }
            #expect(results.contains(.started(initialized: true)))
            #expect(results.contains(.alreadyRunning))
            let postmasters = try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { entry in
                guard let pid = Int32(entry),
                      let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
                else { return false }
                return command.contains(cluster.dataDirectory.path) && !command.contains("pg_ctl")
            }
            #expect(postmasters.count == 1)
        }
    }

    @Test("missing server programs give one line naming the package to install")
    func missingBinaries() {
        let error = #expect(throws: EmbeddedClusterError.self) {
            _ = try PostgresBinaries.locate(environment: ["PATH": "/nonexistent"], installRoots: [])
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("apt-get install postgresql"))
        #expect(!message.contains("\n"))
    }

    @Test("the cluster's URL and conninfo point at its socket directory")
    func addresses() {
        let cluster = EmbeddedCluster(directory: URL(fileURLWithPath: "/tmp/some dir/funnel"))
        #expect(cluster.url == "postgresql://funnel@/funnel?host=%2Ftmp%2Fsome%20dir%2Ffunnel%2Frun&port=5432")
        #expect(cluster.conninfo.contains("host='/tmp/some dir/funnel/run'"))
        #expect(ConnectionString.parse(cluster.url)?["host"] == "/tmp/some dir/funnel/run")
        #expect(ConnectionString.parse(cluster.conninfo)?["dbname"] == "funnel")
    }
}
