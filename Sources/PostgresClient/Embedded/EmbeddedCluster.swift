public import Foundation
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// funnel's own PostgreSQL cluster (docs/configuration.md, "The embedded cluster"): created with
/// `initdb` on first use, started with `pg_ctl` on a Unix socket inside its directory (no TCP
/// port), and reused by later runs.
///
/// Layout under `directory`: `data/` (the cluster), `run/` (the socket), `log/postgres.log`, and
/// `cluster.lock`, an flock that serialises start and stop across processes, so two processes
/// starting at once end with one running server.
///
/// As root, `initdb` and `postgres` refuse to run, so the cluster runs as the unprivileged
/// `postgres` account via `runuser`, which owns `data/`, `run/` and `log/`; we connect over the
/// socket as the superuser `funnel` that `initdb -U` created (trust authentication on a socket
/// only its owner and root can open).
public struct EmbeddedCluster: Sendable {
    public static let superuser = "funnel"
    public static let databaseName = "funnel"
    /// The database `funnel demo` writes its sample into, so a team's own data never mixes with it.
    public static let demoDatabaseName = "funnel_demo"
    /// The port of a cluster made without one: PostgreSQL's usual port, on our own socket.
    public static let defaultPort = 5432

    public let directory: URL
    /// The port number in the socket's name (`run/.s.PGSQL.PORT`); no TCP port is opened.
    public let port: Int
    /// Libraries loaded at server start besides `pg_prewarm` (e.g. `citus`, which must come first).
    public let preloadLibraries: [String]
    /// More `postgresql.conf` settings written on every start, by name (values are written as given).
    public let extraSettings: [String: String]
    public var dataDirectory: URL { directory.appending(path: "data") }
    public var socketDirectory: URL { directory.appending(path: "run") }
    public var logFile: URL { directory.appending(path: "log/postgres.log") }
    private var lockFile: URL { directory.appending(path: "cluster.lock") }

    public init(directory: URL, port: Int = EmbeddedCluster.defaultPort, preloadLibraries: [String] = [],
                extraSettings: [String: String] = [:]) {
        self.directory = directory.standardizedFileURL
        self.port = port
        self.preloadLibraries = preloadLibraries
        self.extraSettings = extraSettings
    }

    /// `FUNNEL_HOME`, else `~/.funnel`; as root, `/var/lib/funnel`, because root's home is closed
    /// to the `postgres` account that runs the server.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["FUNNEL_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home)
        }
        if geteuid() == 0 {
            return URL(fileURLWithPath: "/var/lib/funnel")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appending(path: ".funnel")
    }

    /// libpq `key=value` connection string for the cluster's database.
    public var conninfo: String { conninfo(database: Self.databaseName) }

    /// libpq connection string for another database of the cluster.
    public func conninfo(database: String) -> String {
        "host=\(Self.quote(socketDirectory.path)) port=\(port) user=\(Self.superuser) dbname=\(Self.quote(database))"
    }

    /// The cluster's database as a `postgresql://` URL (the socket directory in `host=`).
    public var url: String { url(database: Self.databaseName) }

    /// Another database of the cluster as a `postgresql://` URL.
    public func url(database: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "/&=+?#")
        let host = socketDirectory.path.addingPercentEncoding(withAllowedCharacters: allowed) ?? socketDirectory.path
        let name = database.addingPercentEncoding(withAllowedCharacters: allowed) ?? database
        return "postgresql://\(Self.superuser)@/\(name)?host=\(host)&port=\(port)"
    }

    /// What `status()` found.
    public enum Status: Equatable, Sendable {
        /// No cluster has been created in the directory yet.
        case notInitialized
        case stopped
        case running(pid: Int32)
    }

    /// Whether the cluster exists and runs, answering on its socket.
    public func status() -> Status {
        guard FileManager.default.fileExists(atPath: dataDirectory.appending(path: "PG_VERSION").path) else {
            return .notInitialized
        }
        guard ConnectionString.ping(conninfo(database: "postgres")) != .noResponse,
              let pid = postmasterPID()
        else { return .stopped }
        return .running(pid: pid)
    }

    /// What `start` did.
    public enum StartOutcome: Equatable, Sendable {
        case alreadyRunning
        case started(initialized: Bool)
    }

    /// Creates the cluster if needed and starts it if it is not running; returns once it accepts
    /// connections and its `funnel` database exists. Safe to call from several processes at once.
    @discardableResult
    public func start(logger: Logger = Logger(label: "funnel.cluster")) throws -> StartOutcome {
        let binaries = try PostgresBinaries.locate()
        let account = try serverAccount()
        try prepareDirectories(account: account)
        return try withClusterLock {
            let runner = ProcessRunner(account: account?.name, workingDirectory: directory)
            if ConnectionString.ping(conninfo(database: "postgres")) == .accepting {
                try ensureDatabase()
                return .alreadyRunning
            }
            var initialized = false
            if !FileManager.default.fileExists(atPath: dataDirectory.appending(path: "PG_VERSION").path) {
                try initialize(binaries: binaries, runner: runner, account: account, logger: logger)
                initialized = true
            }
            let walCompression = Self.fastestWALCompression(binaries: binaries, runner: runner, dataDirectory: dataDirectory)
            try writeServerSettings(account: account, walCompression: walCompression,
                                    sharedBuffersMB: Self.sharedBuffersMegabytes(memoryBytes: Self.availableMemoryBytes()),
                                    autoprewarm: binaries.hasModule("pg_prewarm"))
            // After a crash, the old server's lock files and processes can stand in the way for a
            // few seconds (see `clearCrashedServer`): clear them, and retry a start refused for them.
            let deadline = Date().addingTimeInterval(Self.crashRecoverySeconds)
            while true {
                try clearCrashedServer(until: deadline, logger: logger)
                logger.info("starting embedded PostgreSQL", metadata: ["cluster.directory": .string(directory.path)])
                let logStart = Self.fileSize(logFile)
                let outcome = try runner.run(binaries.pgCtl, [
                    "start", "-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "60", "-s",
                ])
                if outcome.status == 0 { break }
                // Another server may have won a race outside our lock (e.g. started by hand).
                if ConnectionString.ping(conninfo(database: "postgres")) == .accepting {
                    try ensureDatabase()
                    return .alreadyRunning
                }
                let output = [outcome.output, logTail(since: logStart)].filter { !$0.isEmpty }.joined(separator: "\n")
                if Date() < deadline, Self.refusedForOldServer(output), postmasterPID() == nil {
                    logger.warning("PostgreSQL refused to start beside the remains of a crashed server; retrying",
                                   metadata: ["cluster.directory": .string(directory.path)])
                    usleep(250_000)
                    continue
                }
                throw EmbeddedClusterError.commandFailed(command: "pg_ctl start", output: output)
            }
            try waitUntilAccepting(seconds: 60)
            try ensureDatabase()
            return .started(initialized: initialized)
        }
    }

    /// Stops the cluster (fast shutdown: open transactions roll back). Returns false when it was
    /// not running.
    @discardableResult
    public func stop(logger: Logger = Logger(label: "funnel.cluster")) throws -> Bool {
        guard FileManager.default.fileExists(atPath: dataDirectory.appending(path: "PG_VERSION").path) else {
            return false
        }
        let binaries = try PostgresBinaries.locate()
        let account = try serverAccount()
        return try withClusterLock {
            guard postmasterPID() != nil else { return false }
            let runner = ProcessRunner(account: account?.name, workingDirectory: directory)
            let outcome = try runner.run(binaries.pgCtl, ["stop", "-D", dataDirectory.path, "-m", "fast", "-w", "-t", "60", "-s"])
            if outcome.status != 0, postmasterPID() != nil {
                throw EmbeddedClusterError.commandFailed(command: "pg_ctl stop", output: outcome.output)
            }
            logger.info("stopped embedded PostgreSQL", metadata: ["cluster.directory": .string(directory.path)])
            return outcome.status == 0
        }
    }

    // MARK: - Steps

    private func initialize(binaries: PostgresBinaries, runner: ProcessRunner, account: ServerAccount?,
                            logger: Logger) throws {
        // initdb into a scratch directory and rename it into place, so a crash mid-way leaves
        // no half-made cluster behind.
        let scratch = directory.appending(path: "data.initializing")
        try? FileManager.default.removeItem(at: scratch)
        if FileManager.default.fileExists(atPath: dataDirectory.path) {
            try FileManager.default.removeItem(at: dataDirectory)
        }
        try makeDirectory(scratch, account: account)
        logger.info("creating embedded PostgreSQL cluster", metadata: ["cluster.directory": .string(directory.path)])
        try runner.check(binaries.initdb, [
            "-D", scratch.path, "-U", Self.superuser, "--auth=trust", "--encoding=UTF8", "--no-locale",
        ])
        let configuration = scratch.appending(path: "postgresql.conf")
        let handle = try FileHandle(forWritingTo: configuration)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n# funnel: settings written on every start\ninclude_if_exists = 'funnel.conf'\n".utf8))
        try handle.close()
        try FileManager.default.moveItem(at: scratch, to: dataDirectory)
    }

    /// The WAL compression the server is built with that costs least: `lz4` (PostgreSQL 15 and
    /// later, when built with it), else none. Pages written whole to the WAL after a checkpoint
    /// are most of a daily run's WAL (665 MB on the 300k-user bench day, 330 MB compressed);
    /// compressing them took about 9% off the day's ingest (four interleaved pairs). `postgres -C`
    /// checks the value without starting a server.
    static func fastestWALCompression(binaries: PostgresBinaries, runner: ProcessRunner, dataDirectory: URL) -> String {
        let probe = try? runner.run(binaries.postgres, [
            "-C", "wal_compression", "-c", "wal_compression=lz4", "-D", dataDirectory.path,
        ])
        return probe?.status == 0 ? "lz4" : "off"
    }

    /// `shared_buffers` for a machine with `memoryBytes` of memory: a quarter of it, as the
    /// PostgreSQL manual suggests for a dedicated server, between 128 MB and 8 GB. Only the buffers
    /// PostgreSQL fills take memory. Buffers are the one cache a long-running server keeps: on
    /// the project's machine the kernel drops file pages idle for a minute, so with 256 MB a daily
    /// run read most of the database from disk (`funnel bench daily` at 300k users: 7.9-14.6 s);
    /// with the database in the buffers it took 6.4-8.5 s.
    public static func sharedBuffersMegabytes(memoryBytes: UInt64) -> Int {
        let quarter = Int(min(memoryBytes / 4 / 1_048_576, UInt64(Int.max)))
        return min(max(quarter, 128), 8192)
    }

    /// Physical memory, or the control group's limit when a container sets a lower one.
    public static func availableMemoryBytes() -> UInt64 {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        var memory = pages > 0 && pageSize > 0 ? UInt64(pages) * UInt64(pageSize) : 1 << 30
        for limitFile in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let text = try? String(contentsOfFile: limitFile, encoding: .utf8),
               let limit = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0 {
                memory = min(memory, limit)
            }
        }
        return memory
    }

    /// Settings rewritten on every start, so a moved directory still finds its socket.
    ///
    /// With `autoprewarm`, `pg_prewarm` records which pages the buffers hold (every 5 minutes and
    /// at shutdown) and reads them back after a start, so a restart does not leave the next run
    /// to read the database from disk.
    private func writeServerSettings(account: ServerAccount?, walCompression: String, sharedBuffersMB: Int,
                                     autoprewarm: Bool) throws {
        let settings = """
        # Written by funnel on every start of the embedded cluster; it overrides postgresql.conf.
        # To override it, use ALTER SYSTEM (postgresql.auto.conf is read after this file).
        listen_addresses = ''
        port = \(port)
        unix_socket_directories = '\(socketDirectory.path.replacingOccurrences(of: "'", with: "''"))'
        unix_socket_permissions = 0700
        shared_buffers = '\(sharedBuffersMB)MB'
        work_mem = '64MB'
        maintenance_work_mem = '512MB'
        max_wal_size = '4GB'
        checkpoint_timeout = '15min'
        wal_compression = \(walCompression)
        \(Self.preloadSetting(preloadLibraries + (autoprewarm ? ["pg_prewarm"] : [])))
        log_min_messages = warning
        log_line_prefix = '%m [%p] '
        \(extraSettings.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "\n"))

        """
        let file = dataDirectory.appending(path: "funnel.conf")
        try settings.write(to: file, atomically: true, encoding: .utf8)
        if let account { chown(file.path, account.uid, account.gid) }
    }

    private static func preloadSetting(_ libraries: [String]) -> String {
        libraries.isEmpty ? "" : "shared_preload_libraries = '\(libraries.joined(separator: ","))'"
    }

    /// Seconds a start waits for a crashed server's remains (its processes exiting) and retries
    /// a start PostgreSQL refused because of them.
    static let crashRecoverySeconds: TimeInterval = 10

    /// Clears what a crashed server leaves in the way of a start, when no live server of this
    /// data directory holds `postmaster.pid`:
    ///
    /// - `postmaster.pid` and the socket's lock file name the dead postmaster. PostgreSQL refuses
    ///   to start while that pid looks alive to `kill(pid, 0)`, which a killed postmaster does as
    ///   a zombie until its parent reaps it (1-2 s here: `pg_ctl` daemonises the server, so its
    ///   parent is init), and which an unrelated process with a recycled pid does for good. So
    ///   the files go when their pid is gone, a zombie, not postgres, or a postgres of another
    ///   data directory.
    /// - The dead postmaster's children exit shortly after it, but while they run they keep its
    ///   shared memory attached and PostgreSQL refuses to start ("pre-existing shared memory
    ///   block is still in use"): wait, until `deadline`, for them to exit.
    private func clearCrashedServer(until deadline: Date, logger: Logger) throws {
        let pidFile = dataDirectory.appending(path: "postmaster.pid")
        if let pid = Self.firstLinePID(of: pidFile), isLiveServer(pid) { return }
        let files = [pidFile, socketDirectory.appending(path: ".s.PGSQL.\(port).lock")]
        for file in files {
            guard let pid = Self.firstLinePID(of: file), !isLiveServer(pid) else { continue }
            logger.warning("removing stale lock file left by a crash", metadata: [
                "cluster.file": .string(file.path), "cluster.pid": .stringConvertible(pid),
                "cluster.pid_state": .string(Self.processState(pid).map { String($0) } ?? "gone"),
            ])
            do {
                try FileManager.default.removeItem(at: file)
            } catch CocoaError.fileNoSuchFile {
                continue
            }
        }
        var leftovers = serverProcesses()
        if !leftovers.isEmpty {
            logger.info("waiting for a crashed server's processes to exit", metadata: [
                "cluster.pids": .string(leftovers.map(String.init).joined(separator: ",")),
            ])
        }
        while !leftovers.isEmpty, Date() < deadline {
            usleep(50_000)
            leftovers = serverProcesses()
        }
    }

    /// Whether PostgreSQL's refusal to start (pg_ctl's output and the log) is the remains of an
    /// old server: its lock file, or its shared memory still attached.
    static func refusedForOldServer(_ output: String) -> Bool {
        output.contains("lock file \"postmaster.pid\" already exists")
            || output.contains("lock file \".s.PGSQL")
            || output.contains("pre-existing shared memory block")
    }

    private func waitUntilAccepting(seconds: Int) throws {
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < deadline {
            if ConnectionString.ping(conninfo(database: "postgres")) == .accepting { return }
            usleep(100_000)
        }
        throw EmbeddedClusterError.notReady(seconds: seconds, logTail: logTail())
    }

    private func ensureDatabase() throws {
        try ensureDatabase(named: Self.databaseName)
    }

    /// Creates a database of the running cluster unless it exists; safe to call from several
    /// processes at once.
    public func ensureDatabase(named name: String) throws {
        let admin = try PostgresConnection(connecting: conninfo(database: "postgres"))
        let exists = try admin.query("select count(*) from pg_database where datname = $1", [name])
            .scalar(Int.self) > 0
        guard !exists else { return }
        do {
            try admin.execute("create database \(try admin.quoteIdentifier(name))")
        } catch let error as PostgresError where error.sqlState == .duplicateDatabase || error.sqlState == .uniqueViolation {
            return
        }
    }

    private func postmasterPID() -> Int32? {
        guard let pid = Self.firstLinePID(of: dataDirectory.appending(path: "postmaster.pid")),
              isLiveServer(pid)
        else { return nil }
        return pid
    }

    /// Whether `pid` is a live postgres process of this data directory (not a zombie, not a
    /// recycled pid). The server and its children work in the data directory; when we may not
    /// read that, a postmaster's `-D` argument decides, and a postgres process we cannot see into
    /// counts as ours, so a live server is never taken for dead.
    func isLiveServer(_ pid: Int32) -> Bool {
        guard Self.isPostgresProcess(pid), let state = Self.processState(pid), state != "Z", state != "X" else {
            return false
        }
        let ours = [dataDirectory.path, resolvedDataDirectory]
        if let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") {
            return ours.contains(cwd)
        }
        if let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8) {
            let arguments = command.split(separator: "\0").map(String.init)
            if let flag = arguments.firstIndex(of: "-D"), flag + 1 < arguments.count {
                return ours.contains(URL(fileURLWithPath: arguments[flag + 1]).standardizedFileURL.path)
            }
        }
        return true
    }

    /// The live postgres processes working in this data directory: a server's postmaster and its
    /// children (empty when we may not read other accounts' processes).
    private func serverProcesses() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard Self.isPostgresProcess(pid), let state = Self.processState(pid), state != "Z", state != "X",
                  let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
            else { return false }
            return cwd == resolvedDataDirectory
        }
    }

    private var resolvedDataDirectory: String {
        guard let resolved = realpath(dataDirectory.path, nil) else { return dataDirectory.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func logTail(lines: Int = 15, since offset: UInt64 = 0) -> String {
        guard let data = try? Data(contentsOf: logFile) else { return "" }
        let text = String(decoding: data.dropFirst(Int(min(offset, UInt64(data.count)))), as: UTF8.self)
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    private static func fileSize(_ file: URL) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    // MARK: - Accounts, directories and the lock

    struct ServerAccount {
        let name: String
        let uid: uid_t
        let gid: gid_t
    }

    /// The account that runs the server: nil (ourselves) unless we are root.
    private func serverAccount() throws -> ServerAccount? {
        guard geteuid() == 0 else { return nil }
        guard let entry = getpwnam("postgres") else { throw EmbeddedClusterError.serverAccountMissing }
        return ServerAccount(name: "postgres", uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    private func prepareDirectories(account: ServerAccount?) throws {
        let socketFile = socketDirectory.appending(path: ".s.PGSQL.\(port)").path
        guard socketFile.utf8.count <= 107 else { throw EmbeddedClusterError.socketPathTooLong(socketFile) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: account == nil ? 0o700 : 0o755])
        if account != nil { try checkReachable() }
        try makeDirectory(socketDirectory, account: account)
        try makeDirectory(logFile.deletingLastPathComponent(), account: account)
    }

    private func makeDirectory(_ url: URL, account: ServerAccount?) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if let account { chown(url.path, account.uid, account.gid) }
    }

    /// As root, every ancestor of the directory must let the `postgres` account pass.
    private func checkReachable() throws {
        var path = directory
        while true {
            var info = stat()
            if stat(path.path, &info) == 0, info.st_mode & S_IXOTH == 0 {
                throw EmbeddedClusterError.directoryUnreachable(directory: directory.path, blockedAt: path.path)
            }
            let parent = path.deletingLastPathComponent()
            if parent.path == path.path { return }
            path = parent
        }
    }

    private func withClusterLock<T>(_ body: () throws -> T) throws -> T {
        let descriptor = open(lockFile.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw EmbeddedClusterError.commandFailed(command: "open \(lockFile.path)", output: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw EmbeddedClusterError.commandFailed(command: "flock \(lockFile.path)", output: String(cString: strerror(errno)))
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    // MARK: - Helpers

    static func firstLinePID(of file: URL) -> Int32? {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let first = text.split(whereSeparator: \.isNewline).first
        else { return nil }
        return Int32(first.trimmingCharacters(in: .whitespaces)).map { abs($0) }
    }

    /// Whether `pid` is a live process named postgres (a server, not a recycled pid).
    public static func isPostgresProcess(_ pid: Int32) -> Bool {
        guard pid > 0, let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else {
            return false
        }
        let command = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return command == "postgres" || command == "postmaster"
    }

    /// The state letter of `/proc/PID/stat` (R, S, D, Z for a zombie, ...); nil when the process
    /// is gone.
    static func processState(_ pid: Int32) -> Character? {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].first { $0 != " " }
    }

    static func quote(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
