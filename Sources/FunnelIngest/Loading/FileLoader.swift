public import Foundation
import CMalloc
public import FunnelCore
import FunnelSQL
import Logging
public import PostgresClient

/// Loads claimed files into the raw tables, exactly once each, through one connection.
///
/// Per file: the rows are COPYed (while the next batch is parsed) into the session's staging
/// tables, outside any transaction; then one transaction row-locks the file's queue row, merges
/// each kind with one set-based statement under that kind's merge lock, keeps the rejects,
/// ties the devices the file's rows name to their users (``IdentityLinks``) and marks the file
/// loaded (compute finds a loaded file's rows by file_id: nothing else is marked). A crash before that commit leaves nothing
/// (staging dies with the session); after it, everything. Not thread-safe: one per worker.
public final class FileLoader {
    let connection: PostgresConnection
    let workerID: String
    let leaseSeconds: Double
    /// Rows read per batch (and per COPY round).
    public var batchRows = 50_000
    /// `work_mem` for the merge transaction (the merge sorts the whole file).
    public var mergeWorkMem = "128MB"
    /// How far a compressed file may expand before it is refused.
    public var expansion = ExpansionLimit()
    /// Which merge each kind takes: chosen per file and kind by default (``BulkMerge``).
    public var mergePath = MergePath.automatic
    /// The fewest rows of a kind in a file for which the automatic choice may take the bulk merge.
    public var bulkMinimumRows = 50_000
    /// The size (bytes as stored) from which a file of one event kind is staged by two COPY
    /// streams at once and takes the bulk merge (``SplitLoad``), when ``connectSecondStream``
    /// is set and ``mergePath`` is not daily. 0: every such file.
    public var splitCopyBytes: Int64 = 64 << 20
    /// Whether a split load writes its rows in binary COPY format when its kind has one
    /// (``BinaryLayout``); false keeps COPY text (tests load both ways).
    var splitCopyInBinary = true
    /// The most COPY text of possibly repeated keys (``RepeatedKeyFilter``) a file may note; past
    /// it, the bulk merge groups every staged key to find the duplicates.
    public var maximumSuspectBytes = 8 << 20
    /// A fixed size in bits for the files' ``RepeatedKeyFilter`` instead of one sized from the
    /// file (tests make it tiny, so that nearly every row is a suspect).
    var repeatedKeyFilterBits: Int?
    /// The most parallel workers one index build of a bulk merge may take (the keys' primary key,
    /// the new months' indexes); nil leaves the server's `max_parallel_maintenance_workers`. Set
    /// from this machine's processors when the server runs on it (``buildWorkerCap(processors:)``).
    public var buildWorkers: Int?
    /// Opens the second connection of a split load (kept for the next large file).
    public var connectSecondStream: (@Sendable () throws -> PostgresConnection)?
    private var secondConnection: PostgresConnection?

    /// The staging tables that may hold rows of an earlier file: each is noted before a COPY into
    /// it, and only these are emptied before the next file (truncating all nine for every file took
    /// 9 ms a file). Fixed names, never from input; all of them at first, as the session's tables
    /// may hold the rows of an earlier loader on the same connection.
    private var filledStaging: Set<String> = Set(EventKind.allCases.map(FileLoader.stagingTable) + ["stage_rejects", "stage_suspects"])

    /// Prepares `connection` (creates its staging tables) for loading files claimed by
    /// `workerID` under leases of `leaseSeconds`.
    public init(connection: PostgresConnection, workerID: String, leaseSeconds: Double) throws {
        _ = Self.largeBuffersReturned
        self.connection = connection
        self.workerID = workerID
        self.leaseSeconds = leaseSeconds
        try connection.execute(SQLCatalog.text("staging/create_staging.sql"))
        if try connection.query(SQLCatalog.text("staging/server_is_local.sql"))[0].decode(Bool.self, at: 0) {
            buildWorkers = Self.buildWorkerCap(processors: ProcessInfo.processInfo.activeProcessorCount)
        }
    }

    /// The parallel workers one index build may take when the server shares the loader's
    /// `processors`: a split merge runs two builds at once (the keys beside the new months'
    /// indexes) while the other workers load, so each build, its leader included, gets half the
    /// processors; none on two. Workers past the processors only take turns with the other
    /// build's: on two processors, the telemetry's keys took 9-11 s without workers against
    /// 13-16 s with the server's two, and the history import 56-64 s against 58-72 s
    /// (docs/performance-log.md).
    static func buildWorkerCap(processors: Int) -> Int {
        max(0, processors / 2 - 1)
    }

    /// Caps the parallel workers of the index builds on `connection` at `workers`, never above the
    /// server's own setting, for the current transaction (`local`) or the session; returns the
    /// value in force.
    @discardableResult
    static func capBuildWorkers(_ connection: PostgresConnection, at workers: Int, local: Bool) throws -> Int {
        let value = try connection.query(SQLCatalog.text("staging/build_workers.sql"), [workers, local])[0].decode(String.self, at: 0)
        return Int(value) ?? workers
    }

    /// Makes the C allocator map every block of 1 MB or more on its own and give it back when
    /// freed, as glibc does at first. Its default raises that threshold to the largest block
    /// freed so far (up to 32 MB), after which the loaders' multi-megabyte batch buffers, made and
    /// freed on several threads, stay in its arenas: a history's import peaked at 187 MB of
    /// resident memory, and at 102 MB with the threshold fixed. Process-wide, set once.
    private static let largeBuffersReturned: Void = {
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
    }()

    /// Loads one claimed file and marks it loaded.
    /// - Parameters:
    ///   - shouldStop: checked between batches; when true, the load stops before the merge and
    ///     throws ``LoadInterruption/stopRequested`` (the caller puts the file back on the queue).
    ///   - progress: called after each batch with the records it read and the bytes of the file
    ///     (as stored) it advanced.
    /// - Throws: ``FileRefusal`` or ``ReaderOptionError`` for a file to refuse (nothing stored),
    ///   ``LoadInterruption``, or a ``PostgresError``.
    public func load(_ file: ClaimedFile, now: Date = Date(), shouldStop: () -> Bool = { false },
                     progress: (_ rows: Int, _ bytes: Int64) -> Void = { _, _ in }) throws -> FileLoadCounts {
        try emptyStaging()
        // The file's size as stored: whether two streams load it, and how large its repeated-key filter is.
        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        let split = try splitLoad(file, fileBytes: fileBytes)
        // Held from the split load's first COPY to its merge's commit: a smaller file of its kind
        // waits for it before merging (waitForSplitLoads).
        if let split { try connection.query("select pg_advisory_lock_shared($1)", [Self.splitLoadLock(split.kind).value]) }
        defer {
            if let split, connection.isHealthy {
                _ = try? connection.query("select pg_advisory_unlock_shared($1)", [Self.splitLoadLock(split.kind).value])
            }
        }
        var options = ReaderOptions(kind: file.kind, assumeTimeZone: file.assumeTimeZone, now: now)
        options.appTimeZones = file.options.appTimeZones
        options.fallbackTimeZone = file.options.fallbackTimeZone
        options.source = file.options.source
        options.revenueMinorUnits = file.options.revenueMinorUnits
        options.appID = file.options.appID
        options.expansion = expansion
        options.binaryLayout = split?.binary
        let clock = ContinuousClock()
        let started = clock.now
        var staged = try stage(file, fileBytes: fileBytes, options: options, split: split, shouldStop: shouldStop, progress: progress)
        connection.logger.debug("file staged", metadata: ["file.path": "\(file.path)", "load.seconds": .string((clock.now - started).secondsText)])
        if shouldStop() { throw LoadInterruption.stopRequested }
        try Self.refuseMostlyRejected(file, staged.counts, staged.rejects)
        try waitForSplitLoads(of: EventKind.allCases.filter { $0 != split?.kind && staged.rows[$0, default: 0] > 0 },
                              file: file, shouldStop: shouldStop)
        // Partitions are created before, not inside, the merge transaction: creating one locks
        // its parent until commit, and empty partitions are harmless if this load then fails.
        // Only the months that hold rows get one: a stray row from 2000 among today's must not
        // create the 300 partitions between them.
        var bulkKinds: Set<EventKind> = []
        for kind in EventKind.allCases {
            guard let months = staged.months[kind], !months.isEmpty else { continue }
            if let split, split.kind == kind {
                bulkKinds.insert(kind)
                continue
            }
            if try takesBulkMerge(kind, stagedRows: staged.rows[kind, default: 0], months: months) {
                // Its new months are built by the merge itself (BulkMerge), not created empty here.
                bulkKinds.insert(kind)
                try connection.execute("analyze \(Self.stagingTable(kind))\(Self.analyzedColumns(kind))")
                continue
            }
            for run in Self.monthRuns(months) where kind.isPartitioned {
                try connection.query("select ensure_month_partitions($1, $2::date, $3::date)",
                                     [kind.rawTable, Self.monthStart(run.lowerBound), Self.monthStart(run.upperBound)])
            }
            try connection.execute("analyze \(Self.stagingTable(kind))\(Self.analyzedColumns(kind))")
        }
        // A split load's new months get their indexes on the second connection while the merge
        // below finds the duplicates and records the keys.
        var constraintStatements: [String] = []
        let indexBuild = try split.map { split in
            let partitions = try BulkMerge.missingMonths(connection, kind: split.kind, months: staged.months[split.kind] ?? [])
                .map(split.partition)
            let definitions = try connection.query(split.fill("split_index_definitions.sql")).rows.map {
                SplitIndexBuild.Definition(isUnique: try $0.decode(Bool.self, at: 0), constraintType: try $0.decode(String?.self, at: 1),
                                           index: try $0.decode(String.self, at: 2))
            }
            constraintStatements = SplitIndexBuild.constraintStatements(partitions: partitions, definitions: definitions)
            return SplitIndexBuild(connection: try secondStreamConnection(), partitions: partitions, definitions: definitions,
                                   buildWorkers: buildWorkers)
        }
        defer { try? indexBuild?.wait() }
        try connection.transaction { connection in
            let locked = try connection.query(SQLCatalog.text("bookkeeping/ingest/lock_claimed_file.sql"), [file.fileID, workerID])
            guard locked.rows.count == 1 else { throw LoadInterruption.claimLost(fileID: file.fileID) }
            try connection.query("select set_config('work_mem', $1, true)", [mergeWorkMem])
            if let buildWorkers, !bulkKinds.isEmpty { try Self.capBuildWorkers(connection, at: buildWorkers, local: true) }
            // The merges are simple scans, sorts and inserts: compiling them costs more than it saves.
            try connection.execute("set local jit = off")
            var loaded = 0
            for kind in EventKind.allCases where staged.rows[kind, default: 0] > 0 {
                try connection.query("select pg_advisory_xact_lock($1)", [Self.mergeLock(kind).value])
                try BulkMerge.restoreLostKeys(connection, kind: kind, logger: connection.logger)
                if bulkKinds.contains(kind) {
                    let mergeStarted = clock.now
                    if let split, split.kind == kind {
                        loaded += try BulkMerge.mergeSplit(connection, load: split, months: staged.months[kind] ?? [],
                                                           cleanRows: staged.splitCleanRows,
                                                           waitForIndexes: {
                                                               try indexBuild?.wait()
                                                               for statement in constraintStatements { try connection.execute(statement) }
                                                           }, logger: connection.logger)
                    } else {
                        var staging = BulkMerge.Staging(table: Self.stagingTable(kind))
                        staging.suspectsNoted = staged.suspectsNoted
                        loaded += try BulkMerge.merge(connection, kind: kind, fileID: file.fileID, months: staged.months[kind] ?? [],
                                                      staging: staging, logger: connection.logger)
                    }
                    connection.logger.debug("kind merged", metadata: ["load.kind": "\(kind.rawValue)", "load.path": "bulk",
                                                                      "load.seconds": .string((clock.now - mergeStarted).secondsText)])
                    continue
                }
                if kind == .adSpend, let ranksAs = file.ranksAs {
                    // A retry keeps its first entry's place: a later file's restated spend stays.
                    _ = try connection.query(SQLCatalog.text("staging/retry_spend_losers.sql"), [ranksAs])
                }
                let probes = try Self.prefersIndexProbes(connection, kind: kind, stagedRows: staged.rows[kind, default: 0])
                try connection.execute(Self.joinSettings(probes: probes))
                let mergeStarted = clock.now
                loaded += try connection.query(Self.mergeStatement(for: kind), [file.fileID])
                    .scalar(Int.self)
                connection.logger.debug("kind merged", metadata: ["load.kind": "\(kind.rawValue)", "load.seconds": .string((clock.now - mergeStarted).secondsText)])
            }
            // Devices tied to users, and their rows moved, once every kind is stored.
            let deviceKinds = EventKind.allCases.filter { staged.deviceRows[$0, default: 0] > 0 }
            if !deviceKinds.isEmpty {
                _ = try IdentityLinks.apply(connection, fileID: file.fileID, kinds: deviceKinds, logger: connection.logger)
            }
            // The split load's table goes with the file's commit (a load that dies leaves it for the next).
            if let split { try connection.execute("drop table if exists \(split.table); drop table if exists pg_temp.\(SplitLoad.suspectsTable)") }
            if staged.counts.rejected > 0 {
                try connection.query(SQLCatalog.text("staging/insert_rejects.sql"), [file.fileID, file.path])
            }
            staged.counts.rowsLoaded = loaded
            staged.counts.duplicates = staged.rows.values.reduce(0, +) - loaded
            let finished = try connection.query(SQLCatalog.text("bookkeeping/ingest/finish_file.sql"), [
                file.fileID, workerID, "loaded", staged.counts.rowsRead, staged.counts.rowsLoaded,
                staged.counts.duplicates, staged.counts.rejected, staged.importNote, staged.counts.lines.lines,
                staged.counts.lines.header, staged.counts.lines.blank, staged.counts.lines.continuation,
            ])
            guard finished.rows.count == 1 else { throw LoadInterruption.claimLost(fileID: file.fileID) }
        }
        return staged.counts
    }

    /// Whether a kind's staged rows take the bulk merge: never for ad spend (restated, small);
    /// always or never when ``mergePath`` says so; otherwise when ``BulkMerge/isPreferred`` finds
    /// the file large against what is stored. Outside the merge transaction: the merge looks at
    /// the partitions again under its lock.
    func takesBulkMerge(_ kind: EventKind, stagedRows: Int, months: Set<Int32>) throws -> Bool {
        guard kind.isEvent, stagedRows > 0 else { return false }
        switch mergePath {
        case .daily: return false
        case .bulk: return true
        case .automatic:
            guard stagedRows >= bulkMinimumRows else { return false }
            let newMonths = try BulkMerge.missingMonths(connection, kind: kind, months: months).count
            let stored = try connection.query(SQLCatalog.text("staging/raw_rows_estimate.sql"), [kind.rawTable]).scalar(Double.self)
            return BulkMerge.isPreferred(stagedRows: stagedRows, newMonths: newMonths, storedRows: stored, minimumRows: bulkMinimumRows)
        }
    }

    /// Whether the installs' merge should look each staged event up in the raw table's indexes
    /// rather than hash the whole table: when the file is small beside what is stored (a daily
    /// file against months of history) probing costs what the file holds, while the planner's
    /// hash join read every stored row (a day of opens or telemetry, when they were merged the
    /// same way: 2.6 and 3.5 s against 1.2 and 1.0 s at 11M stored rows). A first or bulk load
    /// keeps the planner's choice. The other event kinds insert into their key table, which
    /// probes by itself, and join only the file's own rows.
    static func prefersIndexProbes(_ connection: PostgresConnection, kind: EventKind, stagedRows: Int) throws -> Bool {
        guard kind == .installs else { return false }
        let stored = try connection.query(SQLCatalog.text("staging/raw_rows_estimate.sql"), [kind.rawTable]).scalar(Double.self)
        return Double(stagedRows) * 20 < stored
    }

    /// The staging columns whose statistics the merge needs, as ANALYZE's column list: for the
    /// kinds merged through a key table, the key alone (the merge groups, sorts and joins on
    /// nothing else; statistics of all 31 telemetry columns took 0.24 s of a day's 70k rows, the
    /// key's 0.04 s); every column for installs and ad spend, whose merges join on more.
    static func analyzedColumns(_ kind: EventKind) -> String {
        kind.keyTable == nil ? "" : " (app_id, event_id)"
    }

    /// The join methods of a kind's merge: index probes for a small installs file; the planner's
    /// choice otherwise (the kinds merged through a key table look each staged key up in its
    /// index, which the planner picks by itself for a day's file).
    static func joinSettings(probes: Bool) -> String {
        probes ? "set local enable_hashjoin = off; set local enable_mergejoin = off"
            : "set local enable_hashjoin = on; set local enable_mergejoin = on"
    }

    /// The merge statement of a kind: installs, ad_spend and currency_rates (no key table) have their own; the
    /// other event kinds share one template filled with the kind's table and column names (fixed
    /// in code).
    static func mergeStatement(for kind: EventKind) -> String {
        guard let keyTable = kind.keyTable else { return SQLCatalog.text("staging/merge_\(kind.rawValue).sql") }
        let columns = kind.fieldNames
        return SQLCatalog.text("staging/merge_events.sql")
            .replacingOccurrences(of: "{{raw_table}}", with: kind.rawTable)
            .replacingOccurrences(of: "{{key_table}}", with: keyTable)
            .replacingOccurrences(of: "{{stage_table}}", with: "stage_\(kind.rawValue)")
            .replacingOccurrences(of: "{{columns}}", with: columns.joined(separator: ", "))
            .replacingOccurrences(of: "{{staged_columns}}", with: columns.map { "s.\($0)" }.joined(separator: ", "))
    }

    /// The advisory lock that serialises merges of one kind across every worker, so two installs
    /// merges cannot both pass the "not exists" check for the same event (the other kinds' key
    /// tables would refuse a second copy by themselves).
    public static func mergeLock(_ kind: EventKind) -> AdvisoryLockKey {
        AdvisoryLockKey("funnel.ingest.merge.\(kind.rawValue)")
    }

    /// The advisory lock a split load of a kind holds shared (``SplitLoad``) until its merge commits.
    public static func splitLoadLock(_ kind: EventKind) -> AdvisoryLockKey {
        AdvisoryLockKey("funnel.ingest.split.\(kind.rawValue)")
    }

    /// Waits, before the merge, while another worker's split load of one of `kinds` is under way.
    /// A split load's months become the raw table's partitions at its merge only if the raw table
    /// has none for them yet; a small file of the same kind merged first (a history's late
    /// telemetry, 66k rows, beside its 5.7M-row file) makes those months, and the large file's
    /// rows then go through the raw table's indexes one by one: 28 s instead of an attach. So the
    /// small file waits, renewing its lease; the queue gives such a file to a worker last
    /// (`claim_file.sql`), so the wait is usually short or none. Only polls (a lock that is free is
    /// let go at once): a waiting load holds no lock a split load needs.
    func waitForSplitLoads(of kinds: [EventKind], file: ClaimedFile, shouldStop: () -> Bool) throws {
        var lastRenewal = ContinuousClock.now
        var waiting = false
        for kind in kinds where kind.isEvent {
            while !(try connection.tryAdvisoryLock(Self.splitLoadLock(kind))) {
                if shouldStop() { throw LoadInterruption.stopRequested }
                if !waiting {
                    connection.logger.debug("waiting for a split load of the kind to merge first",
                                            metadata: ["file.path": "\(file.path)", "load.kind": "\(kind.rawValue)"])
                    waiting = true
                    try renewLease(file)
                    lastRenewal = ContinuousClock.now
                }
                try renewLeaseWhenDue(file, lastRenewal: &lastRenewal)
                Thread.sleep(forTimeInterval: 0.1)
            }
            try connection.advisoryUnlock(Self.splitLoadLock(kind))
        }
    }

    /// Consecutive months (as `year * 12 + month - 1`) grouped into closed ranges, in order.
    public static func monthRuns(_ months: Set<Int32>) -> [ClosedRange<Int32>] {
        var runs: [ClosedRange<Int32>] = []
        for month in months.sorted() {
            if let last = runs.last, last.upperBound + 1 == month {
                runs[runs.count - 1] = last.lowerBound...month
            } else {
                runs.append(month...month)
            }
        }
        return runs
    }

    /// The first day of a month given as `year * 12 + month - 1`, as `YYYY-MM-01`.
    static func monthStart(_ month: Int32) -> String {
        let year = Int(month).quotientAndRemainder(dividingBy: 12)
        let monthOfYear = year.remainder + 1
        return String(format: "%04d-%02d-01", year.quotient, monthOfYear)
    }

    /// The staging table of a kind; a fixed name per kind, never built from input.
    static func stagingTable(_ kind: EventKind) -> String { "stage_\(kind.rawValue)" }

    /// Empties the staging tables an earlier file filled.
    private func emptyStaging() throws {
        guard !filledStaging.isEmpty else { return }
        try connection.execute("truncate " + filledStaging.sorted().joined(separator: ", "))
        filledStaging.removeAll()
    }

    /// Refuses a file when more of its rows are rejected than its reject share allows, naming
    /// the commonest cause, its first row and, where funnel knows it, the fix.
    static func refuseMostlyRejected(_ file: ClaimedFile, _ counts: FileLoadCounts, _ rejects: RejectTally) throws {
        let share = file.options.maxRejectShare
        guard counts.rowsRead > 0, counts.rejected > 0, Double(counts.rejected) > share * Double(counts.rowsRead),
              let top = rejects.top else { return }
        throw FileRefusal.mostRowsRejected(
            path: file.path, rejected: counts.rejected, rows: counts.rowsRead, maxShare: share, cause: top.cause,
            causeRows: top.detail.rows, example: "line \(top.detail.firstLine): \(top.detail.firstReason)",
            fix: RejectTally.fix(for: top.cause))
    }

    private struct Staged {
        var counts = FileLoadCounts()
        /// The rejected rows by cause.
        var rejects = RejectTally()
        var rows: [EventKind: Int] = [:]
        /// The staged rows that carry a device id, per kind.
        var deviceRows: [EventKind: Int] = [:]
        var months: [EventKind: Set<Int32>] = [:]
        /// Whether `stage_suspects` holds every staged key that may repeat an earlier one.
        var suspectsNoted = false
        /// The rows a split load COPYed into its load table (the rest of its kind are suspects).
        var splitCleanRows = 0
        /// A vendor export's note for the summary (``VendorSummary/note``).
        var importNote: String?
    }

    /// The split load of `file` when it is loaded by two COPY streams: one event kind given at
    /// enqueue time, at least ``splitCopyBytes`` as stored, a second connection to be had, and a
    /// merge path that may be bulk. Its tables are made afresh (a load of the same file that died
    /// may have left them).
    private func splitLoad(_ file: ClaimedFile, fileBytes: Int64) throws -> SplitLoad? {
        guard mergePath != .daily, connectSecondStream != nil, let kind = file.kind, kind.isEvent else { return nil }
        guard fileBytes >= splitCopyBytes else { return nil }
        var load = SplitLoad(kind: kind, fileID: file.fileID)
        try load.create(on: connection, binary: splitCopyInBinary)
        return load
    }

    /// The second connection of a split load, opened on first use and kept while healthy.
    private func secondStreamConnection() throws -> PostgresConnection {
        if let secondConnection, secondConnection.isHealthy { return secondConnection }
        guard let connectSecondStream else { preconditionFailure("a split load needs connectSecondStream") }
        let fresh = try connectSecondStream()
        secondConnection = fresh
        return fresh
    }

    private func stage(_ file: ClaimedFile, fileBytes: Int64, options: ReaderOptions, split: SplitLoad?,
                       shouldStop: () -> Bool, progress: (_ rows: Int, _ bytes: Int64) -> Void) throws -> Staged {
        var staged = Staged()
        // Two streams keep a batch each in flight besides the one being parsed.
        let pipeline = BatchPipeline(path: file.path, options: options, batchRows: batchRows, depth: split == nil ? 2 : 3)
        defer { pipeline.close() }
        let second = try split.map { split in
            SecondCopyStream(connection: try secondStreamConnection(), copyStatement: split.copyStatement,
                             copyPrefix: split.copyPrefix, kind: split.kind, giveBack: { pipeline.recycle($0) })
        }
        defer { second?.abandon() }
        var splitBatches = 0
        var splitMonths: Set<Int32> = []
        var suspects: [UInt8] = []
        var repeats: RepeatedKeyFilter?
        var lastRenewal = ContinuousClock.now
        var rejectText: [UInt8] = []
        var bytesReported: Int64 = 0
        while var sink = try pipeline.next() {
            var handOver = false
            if mergePath != .daily {
                if repeats == nil {
                    repeats = repeatedKeyFilterBits.map { RepeatedKeyFilter(bits: $0, maximumSuspectBytes: maximumSuspectBytes) }
                        ?? RepeatedKeyFilter(fileBytes: fileBytes, batchBytes: sink.storedBytesConsumed, batchRows: sink.rowsRead,
                                             maximumSuspectBytes: maximumSuspectBytes)
                }
                for kind in sink.kinds where kind.isEvent && kind != split?.kind {
                    sink.withCopyData(for: kind) { repeats!.add(kind: kind, lines: $0) }
                }
            }
            for kind in sink.kinds {
                let firstPlace = Int64(staged.rows[kind, default: 0])
                staged.rows[kind, default: 0] += sink.rowCount(for: kind)
                staged.deviceRows[kind, default: 0] += sink.deviceRowCount(for: kind)
                staged.months[kind, default: []].formUnion(sink.months(for: kind))
                if let split, split.kind == kind, second != nil {
                    // The batch's new months get their partition before either stream COPYs a row of them.
                    for month in sink.months(for: kind).subtracting(splitMonths).sorted() {
                        try split.addPartition(month, on: connection)
                        splitMonths.insert(month)
                    }
                    suspects.removeAll(keepingCapacity: true)
                    staged.splitCleanRows += repeats!.separate(kind: kind, buffer: &sink.buffers[kind.ordinal], firstPlace: firstPlace,
                                                               binary: split.binary != nil, suspects: &suspects)
                    if !suspects.isEmpty {
                        try connection.copyIn(split.suspectsCopyStatement) { writer in
                            try writer.write(split.copyPrefix)
                            try writer.write(suspects)
                        }
                    }
                    splitBatches += 1
                    if splitBatches % 2 == 0 {
                        handOver = true
                        continue
                    }
                    try connection.copyIn(split.copyStatement) { writer in
                        try writer.write(split.copyPrefix)
                        try sink.withCopyData(for: kind) { try writer.write(UnsafeRawBufferPointer($0)) }
                    }
                    continue
                }
                filledStaging.insert(Self.stagingTable(kind))
                _ = try sink.withCopyData(for: kind) { data in
                    try connection.copyIn("copy \(Self.stagingTable(kind)) from stdin") { writer in
                        try writer.write(UnsafeRawBufferPointer(data))
                    }
                }
            }
            if !sink.rejects.isEmpty {
                rejectText.removeAll(keepingCapacity: true)
                for reject in sink.rejects {
                    RejectEncoding.append(reject, to: &rejectText)
                    staged.rejects.add(reject)
                }
                filledStaging.insert("stage_rejects")
                try connection.copyIn("copy stage_rejects from stdin") { writer in try writer.write(rejectText) }
                staged.counts.rejected += sink.rejects.count
            }
            staged.counts.rowsRead += sink.rowsRead
            staged.counts.lines += sink.lineCounts
            if let note = sink.importNote { staged.importNote = note }
            progress(sink.rowsRead, max(0, sink.storedBytesConsumed - bytesReported))
            bytesReported = max(bytesReported, sink.storedBytesConsumed)
            if handOver, let second {
                try second.send(sink)
            } else {
                pipeline.recycle(sink)
            }
            if shouldStop() { throw LoadInterruption.stopRequested }
            try renewLeaseWhenDue(file, lastRenewal: &lastRenewal)
        }
        try second?.finish()
        if let repeats, repeats.isComplete {
            if repeats.suspectCount > 0 {
                filledStaging.insert("stage_suspects")
                try connection.copyIn("copy stage_suspects from stdin") { writer in try writer.write(repeats.suspects) }
                try connection.execute("analyze stage_suspects")
            }
            staged.suspectsNoted = true
        }
        guard staged.counts.lines.recordLines == Int64(staged.counts.rowsRead) else {
            throw FileRefusal.unaccountedLines(
                path: file.path, lines: staged.counts.lines.lines,
                accounted: staged.counts.lines.lines - staged.counts.lines.recordLines + Int64(staged.counts.rowsRead))
        }
        return staged
    }

    /// Renews the lease when a third of it has passed since `lastRenewal`.
    private func renewLeaseWhenDue(_ file: ClaimedFile, lastRenewal: inout ContinuousClock.Instant) throws {
        guard ContinuousClock.now - lastRenewal > .seconds(leaseSeconds / 3) else { return }
        try renewLease(file)
        lastRenewal = ContinuousClock.now
    }

    private func renewLease(_ file: ClaimedFile) throws {
        let renewed = try connection.query(SQLCatalog.text("bookkeeping/ingest/renew_lease.sql"), [file.fileID, workerID, leaseSeconds])
        guard renewed.rows.count == 1 else { throw LoadInterruption.claimLost(fileID: file.fileID) }
    }
}

/// COPY text lines for `stage_rejects` (line, kind, raw, reason).
enum RejectEncoding {
    static func append(_ reject: RejectedRow, to out: inout [UInt8]) {
        out.append(contentsOf: String(reject.line).utf8)
        out.append(0x09)
        if let kind = reject.kind { out.append(contentsOf: kind.rawValue.utf8) } else { out.append(contentsOf: [0x5c, 0x4e]) }
        out.append(0x09)
        appendEscaped(reject.raw, to: &out)
        out.append(0x09)
        appendEscaped(reject.reason, to: &out)
        out.append(0x0a)
    }

    /// COPY text escaping: backslash, tab, newline and carriage return become `\\`, `\t`, `\n`, `\r`.
    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case 0x5c: out.append(contentsOf: [0x5c, 0x5c])
            case 0x09: out.append(contentsOf: [0x5c, 0x74])
            case 0x0a: out.append(contentsOf: [0x5c, 0x6e])
            case 0x0d: out.append(contentsOf: [0x5c, 0x72])
            case 0x00: continue
            default: out.append(byte)
            }
        }
    }
}
