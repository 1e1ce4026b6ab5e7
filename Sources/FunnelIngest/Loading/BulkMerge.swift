import Foundation
import FunnelCore
import FunnelSQL
import Logging
import PostgresClient

/// Which merge a file's rows of one kind take into the raw tables.
public enum MergePath: String, Sendable, CaseIterable {
    /// The loader chooses per kind (``BulkMerge/isPreferred(stagedRows:newMonths:storedRows:minimumRows:)``).
    case automatic
    /// Always the daily merge (merge_events.sql, merge_installs.sql): index insertions.
    case daily
    /// Always the bulk merge, for every event kind but ad spend.
    case bulk
}

/// The bulk merge: a large file's events of one kind go, deduplicated set-wise, into a load table
/// whose partitions are the raw table's new months; those are then attached to the raw table,
/// which builds their indexes in one sorted pass each, instead of inserting every row into every
/// index. Months the raw table already has go through its indexes as the daily merge does.
///
/// Runs inside the file's merge transaction, under the kind's merge lock: the load table, the new
/// partitions and a key table's rebuilt primary key all commit with the file's `loaded` mark or
/// not at all, so a kill at any moment leaves either the whole file or nothing (and no load table
/// behind). Each event is stored once, as by the daily merge: the first copy in file order of an
/// event the file holds twice, nothing of an event already stored.
enum BulkMerge {
    /// Whether the bulk merge is worth taking for a kind: the file brings at least
    /// `minimumRows`, and either opens a month the raw table has no partition for yet (a first
    /// import, a new month) or at least a quarter of what is stored (a re-import).
    static func isPreferred(stagedRows: Int, newMonths: Int, storedRows: Double, minimumRows: Int) -> Bool {
        guard stagedRows >= minimumRows else { return false }
        return newMonths > 0 || Double(stagedRows) * 4 >= storedRows
    }

    /// The monthly partition name of a raw table, as `ensure_month_partitions` names it
    /// (`raw_ux_2024_05`), for a month given as `year * 12 + month - 1`.
    static func partitionName(_ kind: EventKind, month: Int32) -> String {
        kind.rawTable + monthSuffix(month)
    }

    /// A monthly partition's suffix (`_2024_05`) for a month given as `year * 12 + month - 1`.
    static func monthSuffix(_ month: Int32) -> String {
        let (year, monthIndex) = Int(month).quotientAndRemainder(dividingBy: 12)
        return String(format: "_%04d_%02d", year, monthIndex + 1)
    }

    /// The months among `months` whose partition of the kind's raw table does not exist yet.
    static func missingMonths(_ connection: PostgresConnection, kind: EventKind, months: Set<Int32>) throws -> [Int32] {
        let byName = Dictionary(uniqueKeysWithValues: months.map { (partitionName(kind, month: $0), $0) })
        let missing = try connection.query(SQLCatalog.text("staging/bulk_missing_partitions.sql"), [Array(byName.keys)])
        return try missing.rows.map { try byName[$0.decode(String.self, column: "name")]! }.sorted()
    }

    /// Where a kind's rows were staged: the session's staging table, in file order (`ctid`).
    struct Staging {
        var table: String
        /// Whether `stage_suspects` holds every staged key of the kind that may repeat an
        /// earlier one (``RepeatedKeyFilter``), so duplicates are looked for among those only.
        var suspectsNoted = false
    }

    /// Merges the staged rows of `kind` (not ad spend) into its raw table; returns the rows stored.
    /// The caller holds the transaction open and the kind's merge lock.
    static func merge(_ connection: PostgresConnection, kind: EventKind, fileID: Int64, months: Set<Int32>,
                      staging: Staging, logger: Logger) throws -> Int {
        precondition(kind.isEvent, "ad spend restates rows; it has no bulk merge")
        var steps = StepLog(kind: kind, logger: logger)
        let rawTable = kind.rawTable
        let loadTable = "bulk_load_\(kind.rawValue)"
        let columns = kind.fieldNames
        func fill(_ file: String) -> String {
            SQLCatalog.text("staging/\(file)")
                .replacingOccurrences(of: "{{raw_table}}", with: rawTable)
                .replacingOccurrences(of: "{{key_table}}", with: kind.keyTable ?? rawTable)
                .replacingOccurrences(of: "{{stored_keys}}", with: kind.keyTable ?? rawTable)
                .replacingOccurrences(of: "{{stage_table}}", with: staging.table)
                .replacingOccurrences(of: "{{load_table}}", with: loadTable)
                .replacingOccurrences(of: "{{time_column}}", with: kind.timeField)
                .replacingOccurrences(of: "{{columns}}", with: columns.joined(separator: ", "))
                .replacingOccurrences(of: "{{staged_columns}}", with: columns.map { "s.\($0)" }.joined(separator: ", "))
        }
        // Attaching a partition and creating one both lock the raw table in this mode, which
        // conflicts with itself: no other loader creates one of these months meanwhile (its
        // ensure_month_partitions waits, then finds the month made). Readers are not blocked.
        try connection.execute("lock table \(rawTable) in share update exclusive mode")
        let newMonths = try missingMonths(connection, kind: kind, months: months)
        try connection.execute("drop table if exists bulk_duplicates")
        if staging.suspectsNoted {
            try connection.query(fill("bulk_duplicates.suspects.sql"), [kind.rawValue])
        } else {
            try connection.execute(fill("bulk_duplicates.sql"))
        }
        steps.lap("duplicates")
        try connection.execute(fill("bulk_load_table.sql"))
        for month in newMonths {
            let name = try connection.quoteIdentifier(partitionName(kind, month: month))
            let bounds = Self.bounds(month)
            try connection.execute("create table \(name) partition of \(loadTable) for values from ('\(bounds.from)') to ('\(bounds.to)')")
            try connection.execute(addBoundsCheck(name, kind: kind, bounds: bounds))
        }
        let loaded = try connection.query(fill("bulk_insert.sql"), [fileID]).scalar(Int.self)
        steps.lap("insert")
        try recordKeys(connection, kind: kind, newKeys: loaded, insert: fill("bulk_insert_keys.sql"), steps: &steps)
        for month in newMonths {
            let name = try connection.quoteIdentifier(partitionName(kind, month: month))
            let bounds = Self.bounds(month)
            try connection.execute("alter table \(loadTable) detach partition \(name)")
            try connection.execute("alter table \(rawTable) attach partition \(name) for values from ('\(bounds.from)') to ('\(bounds.to)')")
            try connection.execute("alter table \(name) drop constraint \(boundsCheck)")
        }
        steps.lap("attach \(newMonths.count) month(s)")
        try connection.execute(fill("bulk_insert_stored_months.sql"))
        try connection.execute("drop table \(loadTable); drop table bulk_duplicates")
        steps.lap("stored months")
        return loaded
    }

    /// Merges a split load's rows of its kind (``SplitLoad``): the events already stored are found
    /// and the keys recorded (reading the load table only), the suspects' first copies found, then,
    /// once the new months' indexes are built (`waitForIndexes`: ``SplitIndexBuild`` builds them on
    /// the second connection meanwhile), the first copies are added to the load table and the
    /// stored events removed from it, and each of its months is attached to the raw table when the
    /// raw table has no partition for it yet, else moved into the raw table through its indexes.
    /// `cleanRows` is what the COPY put in the load table. Returns the rows stored. The caller
    /// holds the transaction open and the kind's merge lock, and drops the load table afterwards.
    ///
    /// A kind with a key table records the load table's keys first and then finds the first copies
    /// by probing the key table, which by then holds every stored or loaded key: reading the wide
    /// load table once fewer. Installs (no key table) find the first copies against the load table.
    static func mergeSplit(_ connection: PostgresConnection, load: SplitLoad, months: Set<Int32>, cleanRows: Int,
                           waitForIndexes: () throws -> Void, logger: Logger) throws -> Int {
        let kind = load.kind
        var steps = StepLog(kind: kind, logger: logger)
        let rawTable = kind.rawTable
        try connection.execute("lock table \(rawTable) in share update exclusive mode")
        let newMonths = Set(try missingMonths(connection, kind: kind, months: months))
        try connection.execute("analyze \(SplitLoad.suspectsTable); drop table if exists split_first_copies, split_stored_keys")
        // Nothing stored yet (a first import of the kind): no join of every loaded row to learn it.
        let anyStored = try connection.query("select exists (select 1 from \(kind.keyTable ?? rawTable))").scalar(Bool.self)
        func findStored(_ statement: String) throws -> Bool {
            guard anyStored else {
                try connection.execute("create temp table split_stored_keys (app_id text, event_id text) on commit drop")
                return false
            }
            try connection.execute(load.fill(statement))
            try connection.execute("analyze split_stored_keys")
            return try connection.query("select exists (select 1 from split_stored_keys)").scalar(Bool.self)
        }
        let storedFound: Bool
        if kind.keyTable != nil {
            storedFound = try findStored("split_stored.keyed.sql")
            steps.lap("stored events")
            try recordKeys(connection, kind: kind, newKeys: cleanRows,
                           insert: load.fill(storedFound ? "split_keys.sql" : "bulk_insert_keys.sql"), steps: &steps)
            try connection.execute(load.fill("split_first_copies.keyed.sql"))
            try connection.execute(load.fill("split_first_copy_keys.sql"))
            steps.lap("first copies among suspects")
        } else {
            try connection.execute(load.fill("split_first_copies.sql"))
            storedFound = try findStored("split_stored.sql")
            steps.lap("first copies among suspects, stored events")
        }
        try waitForIndexes()
        steps.lap("new months' indexes")
        let added = try connection.query(load.fill("split_apply.sql")).scalar(Int.self)
        let removed = storedFound ? try connection.query(load.fill("split_remove_stored.sql")).scalar(Int.self) : 0
        let loaded = cleanRows + added - removed
        // The partitions leave with no default of their own, as the raw table's own have none.
        try connection.execute("alter table \(load.table) alter column file_id drop default")
        for month in months.sorted() {
            let partition = load.partition(month)
            if newMonths.contains(month) {
                let name = try connection.quoteIdentifier(partitionName(kind, month: month))
                let bounds = Self.bounds(month)
                try connection.execute("alter table \(load.table) detach partition \(partition)")
                try connection.execute("alter table \(partition) rename to \(name)")
                try connection.execute("alter table \(rawTable) attach partition \(name) for values from ('\(bounds.from)') to ('\(bounds.to)')")
                try connection.execute("alter table \(name) drop constraint \(boundsCheck)")
                let indexes = try connection.query(SQLCatalog.text("staging/split_index_names.sql"), [partitionName(kind, month: month)])
                for index in indexes.rows {
                    let parent = try index.decode(String.self, column: "parent_index")
                    let suffix = parent.hasPrefix(rawTable + "_") ? String(parent.dropFirst(rawTable.count)) : "_" + parent
                    guard try index.decode(String.self, column: "index_name") != partitionName(kind, month: month) + suffix else { continue }
                    try connection.execute("alter index \(try connection.quoteIdentifier(index.decode(String.self, column: "index_name"))) rename to \(try connection.quoteIdentifier(partitionName(kind, month: month) + suffix))")
                }
            } else {
                try connection.execute(load.fill("split_stored_month.sql", ["partition": partition]))
            }
        }
        steps.lap("attach \(newMonths.count) month(s), \(months.count - newMonths.count) through the indexes")
        return loaded
    }

    /// A key table's primary key columns (migration 0122): the event id leads, so a sort building
    /// the key tells keys apart by their first column (one app's keys all share the app id, which
    /// left every comparison to the second column: 5.7M keys in 4.5-6.2 s against 1.7 s).
    static let keyColumns = "(event_id, app_id)"

    /// Inserts a merge's new keys into the kind's key table (none for installs) with `insert`. When
    /// the table holds fewer keys than `newKeys`, its primary key is dropped first and built again
    /// after, in one sorted pass, in the same transaction, so the key is never missing for anyone
    /// else.
    static func recordKeys(_ connection: PostgresConnection, kind: EventKind, newKeys: Int, insert: String,
                           steps: inout StepLog) throws {
        guard let keyTable = kind.keyTable else { return }
        let storedKeys = try connection.query(SQLCatalog.text("staging/raw_rows_estimate.sql"), [kind.rawTable]).scalar(Double.self)
        let rebuild = Double(newKeys) > storedKeys
        if rebuild { try connection.execute("alter table \(keyTable) drop constraint \(keyTable)_pkey") }
        try connection.execute(insert)
        if rebuild {
            try connection.execute("alter table \(keyTable) add constraint \(keyTable)_pkey primary key \(keyColumns)")
        }
        steps.lap(rebuild ? "keys (primary key rebuilt)" : "keys")
    }

    /// Fills the kind's key table again when it lost its rows (`keys_lost.sql`): key tables are
    /// unlogged (migration 0124), and PostgreSQL empties them after a crash of the server, as a
    /// physical backup or a promoted standby has them. Its primary key is dropped and built again
    /// in one pass. Called in the merge transaction under the kind's merge lock, before anything
    /// reads the key table; returns whether it had to.
    @discardableResult
    static func restoreLostKeys(_ connection: PostgresConnection, kind: EventKind, logger: Logger) throws -> Bool {
        guard let keyTable = kind.keyTable else { return false }
        func fill(_ file: String) -> String {
            SQLCatalog.text("staging/\(file)")
                .replacingOccurrences(of: "{{key_table}}", with: keyTable)
                .replacingOccurrences(of: "{{raw_table}}", with: kind.rawTable)
        }
        guard try connection.query(fill("keys_lost.sql")).scalar(Bool.self) else { return false }
        logger.warning("key table empty while events are stored (a server crash empties it): filling it again from the raw table",
                       metadata: ["load.kind": "\(kind.rawValue)"])
        try connection.execute("alter table \(keyTable) drop constraint \(keyTable)_pkey")
        try connection.execute(fill("restore_keys.sql"))
        try connection.execute("alter table \(keyTable) add constraint \(keyTable)_pkey primary key \(keyColumns)")
        try connection.execute("analyze \(keyTable)")
        return true
    }

    /// The debug log of a merge's steps, each with the seconds since the one before.
    struct StepLog {
        let kind: EventKind
        let logger: Logger
        private let clock = ContinuousClock()
        private var started: ContinuousClock.Instant

        init(kind: EventKind, logger: Logger) {
            self.kind = kind
            self.logger = logger
            started = clock.now
        }

        mutating func lap(_ step: String) {
            logger.debug("bulk merge step", metadata: ["load.kind": "\(kind.rawValue)", "load.step": "\(step)",
                                                       "load.seconds": .string((clock.now - started).secondsText)])
            started = clock.now
        }
    }

    /// The check a new month's table carries from its creation (`addBoundsCheck`) until it is
    /// attached to the raw table.
    static let boundsCheck = "month_bounds"

    /// Adds the month's bounds to the new month's table `table` (empty, so nothing is read) as a
    /// check of its own: attaching the month to the raw table then finds its partition constraint
    /// implied and does not read the month to prove it (0.3-0.5 s for a month of a history's
    /// telemetry, 2.8M rows, in the file's merge). Its rows are checked as they come, which costs
    /// less. The merge drops the check after the attach. The names and bounds are fixed in code.
    static func addBoundsCheck(_ table: String, kind: EventKind, bounds: (from: String, to: String)) -> String {
        "alter table \(table) add constraint \(boundsCheck) check (\(kind.timeField) >= '\(bounds.from)' and \(kind.timeField) < '\(bounds.to)')"
    }

    /// A month's partition bounds as `timestamptz` literals in UTC (fixed text from integers).
    static func bounds(_ month: Int32) -> (from: String, to: String) {
        (FileLoader.monthStart(month) + " 00:00:00+00", FileLoader.monthStart(month + 1) + " 00:00:00+00")
    }
}
