import Foundation
public import FunnelCore
import FunnelSQL
import Logging
public import PostgresClient

/// The ingest queue in `ingest_files`: enqueueing by content checksum, claiming with
/// `FOR UPDATE SKIP LOCKED` and a lease, and ending claims. Every worker on every machine works
/// through these statements, so they cooperate through the database alone.
public struct IngestQueue {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// What enqueueing a file found.
    public enum Enqueued: Sendable, Equatable {
        /// A new queue row (or the content's refused or failed row, queued again).
        case queued(fileID: Int64)
        /// A file with the same content is already queued, loading or loaded; `rejected` is what
        /// a loaded one rejected.
        case existing(fileID: Int64, path: String, status: String, rejected: Int)
    }

    /// Queues a file unless its content is already queued, loading or loaded. Content refused or
    /// failed before goes back on the queue in its latest row. With `retry`, content loaded
    /// before with rejected rows is queued again: its loaded entry is superseded (its rows stay
    /// its own) and the new load stores what the first did not.
    public func enqueue(path: String, kind: EventKind?, options: FileReadOptions, sha256: String,
                        sizeBytes: Int64, retry: Bool = false) throws -> Enqueued {
        var zones: String?
        if !options.appTimeZones.isEmpty {
            let data = try JSONSerialization.data(withJSONObject: options.appTimeZones, options: [.sortedKeys])
            zones = String(decoding: data, as: UTF8.self)
        }
        // A live row can turn refused/failed between the insert and the look-up, or a refused
        // row be queued again beside another run's insert (a unique violation); then retry.
        var ranksAs: Int64?
        for _ in 0..<5 {
            let inserted: PostgresResult
            do {
                inserted = try connection.query(SQLCatalog.text("bookkeeping/ingest/enqueue_file.sql"),
                                                [path, kind?.rawValue, sha256, sizeBytes, options.assumeTimeZone, zones,
                                                 options.fallbackTimeZone, options.maxRejectShare, ranksAs, options.source?.rawValue,
                                                 options.revenueMinorUnits, options.appID])
            } catch let error as PostgresError where error.sqlState == .uniqueViolation {
                continue
            }
            if let row = inserted.rows.first { return .queued(fileID: try row.decode(Int64.self, at: 0)) }
            let live = try connection.query(SQLCatalog.text("bookkeeping/ingest/find_live_file.sql"), [sha256])
            if let row = live.rows.first {
                let fileID = try row.decode(Int64.self, at: 0)
                let status = try row.decode(String.self, at: 2)
                let rejected = try row.decode(Int.self, at: 3)
                if retry, status == "loaded", rejected > 0 {
                    let superseded = try connection.query(SQLCatalog.text("bookkeeping/ingest/supersede_file.sql"), [fileID])
                    if let first = superseded.rows.first { ranksAs = try first.decode(Int64.self, at: 0) }
                    continue
                }
                return .existing(fileID: fileID, path: try row.decode(String.self, at: 1), status: status, rejected: rejected)
            }
        }
        throw PostgresError(code: .client, message: "could not enqueue \(path): its queue entry kept changing")
    }

    /// Queues a file with only a zone for all of it (the defaults otherwise).
    public func enqueue(path: String, kind: EventKind?, assumeTimeZone: String?, sha256: String,
                        sizeBytes: Int64) throws -> Enqueued {
        try enqueue(path: path, kind: kind, options: FileReadOptions(assumeTimeZone: assumeTimeZone), sha256: sha256,
                    sizeBytes: sizeBytes)
    }

    /// Claims the oldest claimable file (queued, or loading under an expired lease), or the
    /// largest when `largestFirst`, among `fileIDs` when given; nil when there is none.
    public func claim(workerID: String, leaseSeconds: Double, among fileIDs: [Int64]? = nil,
                      largestFirst: Bool = false) throws -> ClaimedFile? {
        let result = try connection.query(SQLCatalog.text("bookkeeping/ingest/claim_file.sql"),
                                          [workerID, leaseSeconds, fileIDs, largestFirst])
        guard let row = result.rows.first else { return nil }
        let kindName = try row.decode(String?.self, at: 2)
        var zones: [String: String] = [:]
        if let text = try row.decode(String?.self, at: 5),
           let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] {
            zones = object
        }
        var options = FileReadOptions(assumeTimeZone: try row.decode(String?.self, at: 3), appTimeZones: zones,
                                      fallbackTimeZone: try row.decode(String?.self, at: 6),
                                      maxRejectShare: try row.decode(Double?.self, at: 7) ?? IngestSettings.defaultMaxRejectShare,
                                      source: try row.decode(String?.self, at: 9).flatMap(VendorSource.init(rawValue:)))
        options.revenueMinorUnits = try row.decode(Bool.self, at: 10)
        options.appID = try row.decode(String?.self, at: 11)
        return ClaimedFile(fileID: try row.decode(Int64.self, at: 0), path: try row.decode(String.self, at: 1),
                           kind: kindName.flatMap(EventKind.init(rawValue:)), options: options,
                           attempts: try row.decode(Int.self, at: 4), ranksAs: try row.decode(Int64?.self, at: 8))
    }

    /// Ends a claim with a verdict: `refused` or `failed`, with the message users will see.
    public func finish(_ file: ClaimedFile, workerID: String, status: FileStatus.State, message: String) throws {
        try connection.query(SQLCatalog.text("bookkeeping/ingest/finish_file.sql"),
                             [file.fileID, workerID, status.rawValue, nil, nil, nil, nil, message, nil, nil, nil, nil])
    }

    /// Puts a claimed file back on the queue.
    public func release(_ file: ClaimedFile, workerID: String, message: String?) throws {
        try connection.query(SQLCatalog.text("bookkeeping/ingest/release_file.sql"), [file.fileID, workerID, message])
    }

    /// Drops the tables split loads left (``SplitLoad``: a load that died, or a file that finally
    /// failed) whose file no worker is loading, each in a transaction holding the file's queue row,
    /// so a worker claiming the file meanwhile waits and then makes its table afresh. Logs and
    /// returns the tables dropped.
    @discardableResult
    public func sweepLeftoverLoadTables() throws -> [String] {
        let leftovers = try connection.query(SQLCatalog.text("bookkeeping/ingest/leftover_load_tables.sql"))
        var dropped: [String] = []
        for row in leftovers.rows {
            let table = try row.decode(String.self, column: "table_name")
            let fileID = try row.decode(Int64.self, column: "file_id")
            try connection.transaction { connection in
                guard try connection.query(SQLCatalog.text("bookkeeping/ingest/lock_idle_file.sql"), [fileID]).scalar(Bool.self) else { return }
                try connection.execute("drop table if exists \(try connection.quoteIdentifier(table))")
                dropped.append(table)
            }
        }
        if !dropped.isEmpty {
            connection.logger.info("dropped load tables that stopped loads left", metadata: ["ingest.tables": "\(dropped.joined(separator: ","))"])
        }
        return dropped
    }

    /// The state and counters of some files.
    public func statuses(_ fileIDs: [Int64]) throws -> [Int64: FileStatus] {
        var result: [Int64: FileStatus] = [:]
        for row in try connection.query(SQLCatalog.text("bookkeeping/ingest/file_statuses.sql"), [fileIDs]).rows {
            let status = FileStatus(
                fileID: try row.decode(Int64.self, at: 0), path: try row.decode(String.self, at: 1),
                kind: try row.decode(String?.self, at: 2),
                state: FileStatus.State(rawValue: try row.decode(String.self, at: 3)) ?? .failed,
                counts: FileLoadCounts(rowsRead: try row.decode(Int.self, at: 4), rowsLoaded: try row.decode(Int.self, at: 5),
                                       duplicates: try row.decode(Int.self, at: 6), rejected: try row.decode(Int.self, at: 7),
                                       lines: LineCounts(lines: try row.decode(Int64.self, at: 9),
                                                         header: try row.decode(Int64.self, at: 10),
                                                         blank: try row.decode(Int64.self, at: 11),
                                                         continuation: try row.decode(Int64.self, at: 12))),
                message: try row.decode(String?.self, at: 8), worker: try row.decode(String?.self, at: 13))
            result[status.fileID] = status
        }
        return result
    }

    /// Up to `limit` rejected rows of some files, as (path, line, reason), in file and line order.
    public func rejects(of fileIDs: [Int64], limit: Int) throws -> [(path: String, line: Int64, reason: String)] {
        try connection.query(SQLCatalog.text("bookkeeping/ingest/list_rejects.sql"), [fileIDs, limit]).rows.map { row in
            (try row.decode(String.self, at: 0), try row.decode(Int64.self, at: 1), try row.decode(String.self, at: 2))
        }
    }
}

/// One queue row's state and counters.
public struct FileStatus: Sendable, Equatable {
    /// The `ingest_files.status` values.
    public enum State: String, Sendable {
        case queued, loading, loaded, refused, failed

        /// Whether no worker will touch the file again.
        public var isFinal: Bool { self == .loaded || self == .refused || self == .failed }
    }

    public let fileID: Int64
    public let path: String
    public let kind: String?
    public let state: State
    public let counts: FileLoadCounts
    public let message: String?
    /// The worker holding the file (loading), or the one that finished it (loaded, refused, failed).
    public let worker: String?
}
