import Foundation
import FunnelCore
import FunnelSQL
import Logging
import PostgresClient

/// The bulk merge of a split staging (``SplitStaging``): the heavy work that changes nothing
/// anyone reads is shared between the loader's connection and the second one, in tables of the
/// file's own; then only the publishing is left, on the loader's connection.
///
/// First (``prepare``, in the file's merge transaction under the kind's merge lock, so no other
/// file of the kind makes these months meanwhile): the file's later copies of an event are found
/// (second connection), and each month the raw table lacks is written into a table of its own
/// (first copies only), given a check constraint of its bounds and the raw table's indexes, the
/// months shared between both connections; the second connection's tables are committed on
/// their own, unattached. Then (``mergePrepared``): the events already stored are deleted from
/// those tables, their keys are recorded, and each is attached to the raw table as its month (its
/// indexes and constraint already there, so attaching neither builds nor scans). Rows of months
/// the raw table has take the bulk merge as before. A load that dies leaves the second
/// connection's tables behind, unpublished; the next load of the file drops them first
/// (bulk_split_leftovers.sql).
extension BulkMerge {
    /// What ``prepare`` built: the later copies' table and the month tables with their rows.
    struct Prepared {
        var duplicates: String
        var months: [PreparedMonth]
    }

    struct PreparedMonth: Sendable {
        var month: Int32
        var table: String
        var rows: Int
    }

    static func duplicatesTable(_ kind: EventKind, fileID: Int64) -> String { "bulk_dups_\(kind.rawValue)_\(fileID)" }

    static func monthTable(_ kind: EventKind, fileID: Int64, month: Int32) -> String {
        let (year, monthIndex) = Int(month).quotientAndRemainder(dividingBy: 12)
        return "bulk_month_\(kind.rawValue)_\(fileID)" + String(format: "_%04d_%02d", year, monthIndex + 1)
    }

    /// Drops what an earlier load of the file left of a split staging.
    static func dropLeftovers(_ connection: PostgresConnection, kind: EventKind, fileID: Int64) throws {
        let names = try connection.query(SQLCatalog.text("ingest/bulk_split_leftovers.sql"), [kind.rawValue, fileID])
            .rows.map { try $0.decode(String.self, column: "name") }
        for name in names { try connection.execute("drop table if exists \(try connection.quoteIdentifier(name))") }
    }

    private static func fill(_ file: String, kind: EventKind, fileID: Int64, stagingTable: String, monthTable: String = "") -> String {
        let columns = kind.fieldNames
        return SQLCatalog.text("ingest/\(file)")
            .replacingOccurrences(of: "{{raw_table}}", with: kind.rawTable)
            .replacingOccurrences(of: "{{stored_keys}}", with: kind.keyTable ?? kind.rawTable)
            .replacingOccurrences(of: "{{stage_table}}", with: stagingTable)
            .replacingOccurrences(of: "{{duplicates}}", with: duplicatesTable(kind, fileID: fileID))
            .replacingOccurrences(of: "{{month_table}}", with: monthTable)
            .replacingOccurrences(of: "{{time_column}}", with: kind.timeField)
            .replacingOccurrences(of: "{{columns}}", with: columns.joined(separator: ", "))
            .replacingOccurrences(of: "{{staged_columns}}", with: columns.map { "s.\($0)" }.joined(separator: ", "))
    }

    /// Builds the later copies' table and one indexed table per month of `months` the raw table
    /// lacks, the months shared between `connection` (in the file's merge transaction) and
    /// `second` (each statement committed on its own).
    static func prepare(_ connection: PostgresConnection, second: PostgresConnection, kind: EventKind, fileID: Int64,
                        stagingTable: String, months: Set<Int32>, logger: Logger) throws -> Prepared {
        let clock = ContinuousClock()
        var started = clock.now
        func lap(_ step: String) {
            logger.debug("bulk merge step", metadata: ["load.kind": "\(kind.rawValue)", "load.step": "\(step)",
                                                       "load.seconds": .string((clock.now - started).secondsText)])
            started = clock.now
        }
        let duplicates = duplicatesTable(kind, fileID: fileID)
        // On the second connection, committed, so both connections' month builds see it. Grouping 5.7M keys spilled to
        // disk at the session's 64 MB.
        try second.execute("set work_mem = '256MB'")
        try second.execute(fill("bulk_split_duplicates.sql", kind: kind, fileID: fileID, stagingTable: stagingTable))
        lap("duplicates (second connection)")
        let newMonths = try missingMonths(connection, kind: kind, months: months)
        // The raw table's indexes as `using <method> (<columns>)`, made again on each month table
        // so that attaching it finds them built.
        let indexes = try connection.query(
            "select pg_get_indexdef(indexrelid) as definition from pg_index where indrelid = $1::regclass order by indexrelid",
            [kind.rawTable]).rows.map { row -> String in
                let definition = try row.decode(String.self, column: "definition")
                guard let using = definition.range(of: " USING ") else {
                    throw PostgresError(code: .client, message: "unexpected index definition on \(kind.rawTable): \(definition)")
                }
                return "using " + definition[using.upperBound...]
            }
        let work = MonthWork(newMonths)
        @Sendable func build(_ connection: SendableConnection) throws {
            let connection = connection.connection
            while let month = work.next() {
                let table = monthTable(kind, fileID: fileID, month: month)
                let bounds = Self.bounds(month)
                try connection.execute("create table \(table) (like \(kind.rawTable) including defaults)")
                let rows = try connection.query(fill("bulk_split_month.sql", kind: kind, fileID: fileID, stagingTable: stagingTable,
                                                     monthTable: table), [fileID, bounds.from, bounds.to]).scalar(Int.self)
                try connection.execute("""
                    alter table \(table) add constraint \(table)_in_month
                        check (\(kind.timeField) >= '\(bounds.from)' and \(kind.timeField) < '\(bounds.to)')
                    """)
                for index in indexes { try connection.execute("create index on \(table) \(index)") }
                work.done(PreparedMonth(month: month, table: table, rows: rows))
            }
        }
        let secondConnection = SendableConnection(connection: second)
        let helper = Thread { [work] in
            do { try build(secondConnection) } catch { work.fail(error) }
        }
        helper.name = "funnel.bulk-month"
        helper.start()
        do { try build(SendableConnection(connection: connection)) } catch { work.fail(error) }
        let built = try work.wait()
        lap("\(built.count) month table(s) written and indexed (two connections)")
        return Prepared(duplicates: duplicates, months: built.sorted { $0.month < $1.month })
    }

    /// Publishes a prepared split staging in the file's merge transaction, under the kind's merge
    /// lock; returns the rows stored. The staged rows of months not prepared (months the raw table
    /// has, or made by another loader meanwhile) take the bulk merge through a view of them.
    static func mergePrepared(_ connection: PostgresConnection, kind: EventKind, fileID: Int64, months: Set<Int32>,
                              stagingTable: String, prepared: Prepared, logger: Logger) throws -> Int {
        let clock = ContinuousClock()
        var started = clock.now
        func lap(_ step: String) {
            logger.debug("bulk merge step", metadata: ["load.kind": "\(kind.rawValue)", "load.step": "\(step)",
                                                       "load.seconds": .string((clock.now - started).secondsText)])
            started = clock.now
        }
        let rawTable = kind.rawTable
        try connection.execute("lock table \(rawTable) in share update exclusive mode")
        let stillMissing = Set(try missingMonths(connection, kind: kind, months: Set(prepared.months.map(\.month))))
        let attached = prepared.months.filter { stillMissing.contains($0.month) }
        var loaded = 0
        for month in attached {
            let deleted = try connection.query(fill("bulk_split_delete_stored.sql", kind: kind, fileID: fileID, stagingTable: stagingTable,
                                                    monthTable: month.table)).scalar(Int.self)
            loaded += month.rows - deleted
        }
        lap("stored events left out")
        if let keyTable = kind.keyTable, !attached.isEmpty {
            let storedKeys = try connection.query(SQLCatalog.text("ingest/raw_rows_estimate.sql"), [rawTable]).scalar(Double.self)
            let rebuild = Double(loaded) > storedKeys
            if rebuild { try connection.execute("alter table \(keyTable) drop constraint \(keyTable)_pkey") }
            for month in attached {
                try connection.execute("insert into \(keyTable) (app_id, event_id) select app_id, event_id from \(month.table)")
            }
            if rebuild {
                try connection.execute("alter table \(keyTable) add constraint \(keyTable)_pkey primary key (app_id, event_id)")
            }
            lap(rebuild ? "keys (primary key rebuilt)" : "keys")
        }
        for month in attached {
            let name = try connection.quoteIdentifier(partitionName(kind, month: month.month))
            let bounds = Self.bounds(month.month)
            try connection.execute("alter table \(month.table) rename to \(name)")
            try connection.execute("alter table \(rawTable) attach partition \(name) for values from ('\(bounds.from)') to ('\(bounds.to)')")
            try connection.execute("alter table \(name) drop constraint \(month.table)_in_month")
        }
        for month in prepared.months where !stillMissing.contains(month.month) {
            try connection.execute("drop table \(month.table)")
        }
        lap("attach \(attached.count) month(s)")
        let attachedMonths = Set(attached.map(\.month))
        let rest = months.subtracting(attachedMonths)
        if !rest.isEmpty {
            // The staged rows outside the attached months, in file order as staged.
            let outside = attached.map { month -> String in
                let bounds = Self.bounds(month.month)
                return "not (\(kind.timeField) >= '\(bounds.from)' and \(kind.timeField) < '\(bounds.to)')"
            }
            try connection.execute("""
                create temp view bulk_rest_\(kind.rawValue) as select * from \(stagingTable)
                where \(outside.isEmpty ? "true" : outside.joined(separator: " and "))
                """)
            loaded += try merge(connection, kind: kind, fileID: fileID, months: rest,
                                staging: Staging(table: "bulk_rest_\(kind.rawValue)", fileOrder: SplitStaging.fileOrderColumn,
                                                 duplicates: prepared.duplicates),
                                logger: logger)
            try connection.execute("drop view bulk_rest_\(kind.rawValue)")
        }
        try connection.execute("drop table \(prepared.duplicates)")
        return loaded
    }
}

/// A connection handed to the thread of ``BulkMerge/prepare``'s second connection.
private struct SendableConnection: @unchecked Sendable {
    // Safe: each connection is used by one thread at a time (the caller's waits for the other's).
    let connection: PostgresConnection
}

/// The months still to build, shared by the two connections of ``BulkMerge/prepare``.
private final class MonthWork: @unchecked Sendable {
    // Safe: every field is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var queue: [Int32]
    private var built: [BulkMerge.PreparedMonth] = []
    private var failure: (any Error)?
    private var finishedWorkers = 0

    init(_ months: [Int32]) { queue = months }

    /// The next month to build, or nil when none is left (or one build failed).
    func next() -> Int32? {
        condition.lock()
        defer { condition.unlock() }
        guard failure == nil, !queue.isEmpty else {
            finishedWorkers += 1
            condition.broadcast()
            return nil
        }
        return queue.removeFirst()
    }

    func done(_ month: BulkMerge.PreparedMonth) {
        condition.lock()
        built.append(month)
        condition.unlock()
    }

    func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        finishedWorkers += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for both workers; the months built, or the first failure.
    func wait() throws -> [BulkMerge.PreparedMonth] {
        condition.lock()
        defer { condition.unlock() }
        while finishedWorkers < 2 { condition.wait() }
        if let failure { throw failure }
        return built
    }
}
