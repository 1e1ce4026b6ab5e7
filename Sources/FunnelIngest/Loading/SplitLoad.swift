import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

/// The load of one large file of one event kind by two COPY streams at once
/// (``FileLoader/splitCopyBytes``): the batches the reader parses go in turn to the loader's own
/// connection and to a second one, both COPYing straight into the file's load table, a
/// partitioned twin of the raw table committed before the COPY (`split_load_table.sql`), whose
/// months become the raw table's partitions at the merge. The server's side of the COPY
/// (parsing the text and typing the values, most of the load's time) runs on two backends, and
/// the rows are written once: not staged, then copied into the load table by the merge (for a
/// history's telemetry file, 5.7M rows, that copy took 12-18 s of the file's merge).
///
/// Each event is kept once, as by the daily merge, without looking at the rows again: the reader
/// passes every row's key through a ``RepeatedKeyFilter``, and only a row whose key is certainly
/// new goes to the load table, so its rows are each the first copy of their event. The others
/// (later copies and a few false positives) go to the session's `split_suspects` with their
/// place in the file. The merge
/// (``BulkMerge/mergeSplit(_:load:months:cleanRows:waitForIndexes:logger:)``) finds the events
/// already stored, records the keys and finds the first copy of each event that has none in the
/// load table while ``SplitIndexBuild`` builds the new months' indexes, then completes the load
/// table (`split_apply.sql`, `split_remove_stored.sql`) and attaches its months.
///
/// The load table is dropped in the file's merge transaction; a load that died before leaves it
/// to the next load of the file, which drops it before loading again, or to the next ingest's
/// sweep (``IngestQueue/sweepLeftoverLoadTables()``).
struct SplitLoad {
    let kind: EventKind
    let fileID: Int64
    /// The binary layout of the kind's rows, when every field has a binary form
    /// (``create(on:)`` reads the load table's column types): the reader then writes them as
    /// binary COPY rows, which the server stores without parsing text. Nil: COPY text.
    private(set) var binary: BinaryLayout?

    /// The load table (fixed text from the kind and the file id, never from input).
    var table: String { "bulk_load_\(kind.rawValue)_\(fileID)" }

    /// The session's table of the rows that may repeat an earlier row's key.
    static let suspectsTable = "split_suspects"

    /// The load table's partition of a month (`year * 12 + month - 1`).
    func partition(_ month: Int32) -> String { table + BulkMerge.monthSuffix(month) }

    /// The COPY of the kind's fields into the load table (file_id takes its default).
    var copyStatement: String { "copy \(table) (\(kind.fieldNames.joined(separator: ", "))) from stdin\(copyOptions)" }

    /// The COPY of suspect rows into ``suspectsTable``.
    var suspectsCopyStatement: String { "copy \(Self.suspectsTable) from stdin\(copyOptions)" }

    /// What each COPY's data starts with: the binary format's header, or nothing for text.
    var copyPrefix: [UInt8] { binary == nil ? [] : BinaryCopy.header }

    private var copyOptions: String { binary == nil ? "" : " (format binary)" }

    /// A statement of `sql/staging/` with this load's names filled in.
    func fill(_ file: String, _ more: [String: String] = [:]) -> String {
        var text = SQLCatalog.text("staging/\(file)")
        let names = [
            "load_table": table, "suspects_table": Self.suspectsTable, "raw_table": kind.rawTable,
            "stage_table": FileLoader.stagingTable(kind), "stored_keys": kind.keyTable ?? kind.rawTable,
            "key_table": kind.keyTable ?? kind.rawTable, "time_column": kind.timeField, "file_id": String(fileID),
            "columns": kind.fieldNames.joined(separator: ", "),
            "staged_columns": kind.fieldNames.map { "s.\($0)" }.joined(separator: ", "),
        ].merging(more) { $1 }
        for (name, value) in names { text = text.replacingOccurrences(of: "{{\(name)}}", with: value) }
        return text
    }

    /// Makes the load table and the suspects' table afresh (a load of the file that died may
    /// have left them), and, when `binary`, finds whether their COPY can be binary: both tables'
    /// columns must have the types a binary layout writes, the same in each.
    mutating func create(on connection: PostgresConnection, binary wanted: Bool) throws {
        try connection.execute(fill("split_load_table.sql"))
        guard wanted else { return }
        let forLoad = try Self.binaryLayout(kind, of: table, on: connection)
        let forSuspects = try Self.binaryLayout(kind, of: "pg_temp." + Self.suspectsTable, on: connection)
        binary = forLoad == forSuspects ? forLoad : nil
    }

    /// The binary layout of `kind`'s rows for the columns of `table` (`split_column_types.sql`),
    /// or nil when the table's columns have no binary form here.
    static func binaryLayout(_ kind: EventKind, of table: String, on connection: PostgresConnection) throws -> BinaryLayout? {
        var types: [String: String] = [:]
        for row in try connection.query(SQLCatalog.text("staging/split_column_types.sql"), [table]).rows {
            types[try row.decode(String.self, column: "name")] = try row.decode(String.self, column: "type")
        }
        return BinaryLayout(kind: kind, typeNames: types)
    }

    /// Adds the load table's partition of `month`, with the month's bounds as a check of its own
    /// (``BulkMerge/addBoundsCheck(_:kind:bounds:)``).
    func addPartition(_ month: Int32, on connection: PostgresConnection) throws {
        let bounds = BulkMerge.bounds(month)
        try connection.execute(fill("split_load_partition.sql", ["partition": partition(month), "from": bounds.from, "to": bounds.to]))
        try connection.execute(BulkMerge.addBoundsCheck(partition(month), kind: kind, bounds: bounds))
    }
}

/// Builds the raw table's indexes on a split load's new months, on the second connection while the
/// merge records the keys on the first, so the attach finds them built (``BulkMerge/mergeSplit``).
/// The load table is committed, so the second connection sees it; the merge only reads it until
/// ``wait()`` returns. A load that fails leaves the indexes with the load table, which the next
/// load of the file drops.
final class SplitIndexBuild: @unchecked Sendable {
    // Safe: `failure` is written by the thread before `done` is signalled and read after waiting;
    // `connection` is used only on the thread after `init`, until `done` is signalled.
    private var failure: (any Error)?
    private let done = DispatchSemaphore(value: 0)
    private var waited = false
    private let connection: PostgresConnection

    /// One index of the raw table, as `split_index_definitions.sql` gives it.
    struct Definition {
        var isUnique: Bool
        /// The kind of constraint the index backs: "p" (primary key), "u" (unique) or nil.
        var constraintType: String?
        /// The index's definition after the table's name.
        var index: String
    }

    /// The name of the `ordinal`-th index built on `partition` (from names fixed in code).
    static func indexName(_ partition: String, _ ordinal: Int) -> String { "\(partition)_i\(ordinal)" }

    /// The statements that make the indexes that back constraints into those constraints
    /// (`ADD PRIMARY KEY USING INDEX`), run by the merge: altering the table takes a lock the
    /// merge's own reads of it would hold against the second connection.
    static func constraintStatements(partitions: [String], definitions: [Definition]) -> [String] {
        partitions.flatMap { partition in
            definitions.enumerated().compactMap { ordinal, definition in
                switch definition.constraintType {
                case "p": "alter table \(partition) add primary key using index \(indexName(partition, ordinal))"
                case "u": "alter table \(partition) add unique using index \(indexName(partition, ordinal))"
                default: nil
                }
            }
        }
    }

    /// Starts building, on `connection`, the indexes `definitions` on each partition of `partitions`,
    /// each with at most `buildWorkers` parallel workers (nil: the server's setting).
    init(connection: PostgresConnection, partitions: [String], definitions: [Definition], buildWorkers: Int?) {
        self.connection = connection
        let statements = partitions.flatMap { partition in
            definitions.enumerated().map { ordinal, definition in
                "create \(definition.isUnique ? "unique " : "")index \(Self.indexName(partition, ordinal)) on \(partition)\(definition.index)"
            }
        }
        let thread = Thread { [self] in
            do {
                if let buildWorkers { try FileLoader.capBuildWorkers(self.connection, at: buildWorkers, local: false) }
                for statement in statements { try self.connection.execute(statement) }
                if buildWorkers != nil { try self.connection.execute("reset max_parallel_maintenance_workers") }
            } catch {
                failure = error
            }
            done.signal()
        }
        thread.name = "funnel.split-indexes"
        thread.start()
    }

    /// Waits for the indexes. Throws what building them threw.
    func wait() throws {
        if !waited {
            done.wait()
            waited = true
        }
        if let failure { throw failure }
    }
}

/// The second COPY stream of a split load: a thread with its own connection that COPYs the
/// batches handed to it, in the order given, into the load table, then gives each batch back
/// to the reader's pipeline. At most the pipeline's batches are in flight, so memory stays
/// bounded.
final class SecondCopyStream: @unchecked Sendable {
    // Safe: `pending`, `closing` and `failure` are read and written only while holding
    // `condition`; `connection` is used only on the stream's own thread after `init`.
    private let condition = NSCondition()
    private var pending: [RowSink] = []
    private var closing = false
    private var failure: (any Error)?
    private let exited = DispatchSemaphore(value: 0)
    private let connection: PostgresConnection

    /// Starts the stream's thread, COPYing each batch's rows of `kind` with `copyStatement` over
    /// `connection`, each COPY's data after `copyPrefix`, and handing each batch to `giveBack` once
    /// sent.
    init(connection: PostgresConnection, copyStatement: String, copyPrefix: [UInt8], kind: EventKind,
         giveBack: @escaping @Sendable (RowSink) -> Void) {
        self.connection = connection
        let thread = Thread { [self] in
            defer { exited.signal() }
            while let sink = nextJob() {
                do {
                    if failureSoFar() == nil {
                        try self.connection.copyIn(copyStatement) { writer in
                            try writer.write(copyPrefix)
                            try sink.withCopyData(for: kind) { try writer.write(UnsafeRawBufferPointer($0)) }
                        }
                    }
                } catch {
                    fail(error)
                }
                giveBack(sink)
            }
        }
        thread.name = "funnel.copy-stream"
        thread.start()
    }

    /// Queues a batch.
    /// - Throws: what an earlier COPY of this stream threw.
    func send(_ sink: RowSink) throws {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        pending.append(sink)
        condition.broadcast()
    }

    /// Waits until every queued batch is COPYed and stops the thread.
    /// - Throws: what a COPY of this stream threw.
    func finish() throws {
        close()
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
    }

    /// Stops the thread after the batches queued (which a failure or a stop skips) and waits for it.
    func close() {
        condition.lock()
        let alreadyClosed = closing
        closing = true
        condition.broadcast()
        condition.unlock()
        if !alreadyClosed { exited.wait() }
    }

    /// Makes the stream skip what is still queued (the load stops or failed).
    func abandon() {
        fail(LoadInterruption.stopRequested)
        close()
    }

    private func nextJob() -> RowSink? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !closing { condition.wait() }
        return pending.isEmpty ? nil : pending.removeFirst()
    }

    private func failureSoFar() -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    private func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.unlock()
    }
}
