import CLibPQ
import Foundation

/// One batch of rows of a streamed query, in PostgreSQL's binary format, read in place from
/// libpq's result: nothing is copied until a value is asked for, and no `String` is made for
/// numbers or times. Only valid inside the `stream` callback that hands it over.
public struct PostgresBinaryBatch {
    let result: OpaquePointer

    /// Rows in the batch.
    public var count: Int { Int(PQntuples(result)) }

    /// The type of column `column`.
    public func type(of column: Int) -> PostgresType { PostgresType(rawValue: PQftype(result, Int32(column))) }

    /// Whether the value is NULL.
    @inline(__always)
    public func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    /// The value's bytes as the server sent them (a `text` column's UTF-8); empty for NULL.
    @inline(__always)
    public func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard let start = PQgetvalue(result, Int32(row), Int32(column)) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: length)
    }

    /// A `bigint` value (8 bytes, big-endian); 0 for NULL.
    @inline(__always)
    public func int64(_ row: Int, _ column: Int) -> Int64 {
        let value = bytes(row, column)
        guard value.count == 8 else { return 0 }
        return Int64(bigEndian: value.loadUnaligned(as: Int64.self))
    }

    /// A `timestamptz` (or `timestamp`) value as microseconds since 1970 (UTC); the server sends
    /// microseconds since 2000. 0 for NULL.
    @inline(__always)
    public func timestampMicros(_ row: Int, _ column: Int) -> Int64 {
        int64(row, column) &+ 946_684_800_000_000
    }

    /// A `double precision` value (8 bytes, big-endian IEEE 754); 0 for NULL.
    @inline(__always)
    public func float64(_ row: Int, _ column: Int) -> Double {
        let value = bytes(row, column)
        guard value.count == 8 else { return 0 }
        return Double(bitPattern: UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))
    }

    /// A `real` value (4 bytes, big-endian IEEE 754); 0 for NULL.
    @inline(__always)
    public func float32(_ row: Int, _ column: Int) -> Float {
        let value = bytes(row, column)
        guard value.count == 4 else { return 0 }
        return Float(bitPattern: UInt32(bigEndian: value.loadUnaligned(as: UInt32.self)))
    }

    /// A `boolean` value; false for NULL.
    @inline(__always)
    public func bool(_ row: Int, _ column: Int) -> Bool {
        let value = bytes(row, column)
        return value.count == 1 && value[0] != 0
    }

    /// A `text` value; nil for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : String(decoding: bytes(row, column), as: UTF8.self)
    }
}

extension PostgresConnection {
    /// Runs one query with bound parameters through a cursor, in binary format, and hands its
    /// rows to `body` a batch of `batchRows` at a time; returns the rows read. The next batch
    /// is fetched on a thread of its own while `body` reads the current one (the connection is
    /// used by that thread alone until the stream ends; `body` must not use the connection).
    /// Runs in a transaction (a savepoint inside an open one).
    @discardableResult
    public func stream(_ sql: String, _ parameters: [(any PostgresEncodable)?] = [], batchRows: Int = 50_000,
                       _ body: (PostgresBinaryBatch) throws -> Void) throws -> Int {
        try transaction { connection in
            try connection.query("declare funnel_stream no scroll cursor for " + sql, parameters)
            let fetch = "fetch forward \(max(1, batchRows)) from funnel_stream"
            let queue = BatchQueue(capacity: 2)
            let fetcher = Fetcher(connection: connection, fetch: fetch, batchRows: batchRows, queue: queue)
            let thread = Thread { fetcher.run() }
            thread.stackSize = 1 << 20
            thread.start()
            var rows = 0
            var failure: (any Error)?
            while let item = queue.pop() {
                switch item {
                case .batch(let result):
                    defer { PQclear(result.pointer) }
                    guard failure == nil else { continue }
                    let batch = PostgresBinaryBatch(result: result.pointer)
                    rows += batch.count
                    do {
                        try body(batch)
                    } catch {
                        failure = error
                        queue.cancel()
                    }
                case .failure(let error):
                    if failure == nil { failure = error }
                }
            }
            fetcher.finished.wait()
            if let failure { throw failure }
            try connection.execute("close funnel_stream")
            return rows
        }
    }

    /// One FETCH in binary format; the result stays owned by the caller.
    fileprivate func fetchBinary(_ sql: String) throws -> OpaquePointer {
        guard let result = PQexecParams(handle, sql, 0, nil, nil, nil, nil, 1) else {
            throw connectionError(query: sql)
        }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            defer { PQclear(result) }
            throw serverError(result, query: sql)
        }
        return result
    }
}

/// A libpq result handed from the fetching thread to the reading one (each owns it in turn).
private struct ResultPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// What the fetching thread hands over: a batch, or the error that ended the stream.
private enum StreamItem: @unchecked Sendable {
    case batch(ResultPointer)
    case failure(any Error)
}

/// A bounded queue between the fetching thread and the reader; `pop` returns nil at the end.
private final class BatchQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [StreamItem] = []
    private var ended = false
    private(set) var cancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Waits for room; false (and the item not queued) once the reader has cancelled.
    func push(_ item: StreamItem) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    func pop() -> StreamItem? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !ended { condition.wait() }
        guard !items.isEmpty else { return nil }
        condition.broadcast()
        return items.removeFirst()
    }

    /// The reader stops: the fetcher stops at its next push.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }
}

/// The fetching thread's loop: FETCH until a short batch, an error or the reader cancels.
private final class Fetcher: @unchecked Sendable {
    let connection: PostgresConnection
    let fetch: String
    let batchRows: Int
    let queue: BatchQueue
    let finished = DispatchSemaphore(value: 0)

    init(connection: PostgresConnection, fetch: String, batchRows: Int, queue: BatchQueue) {
        self.connection = connection
        self.fetch = fetch
        self.batchRows = batchRows
        self.queue = queue
    }

    func run() {
        defer {
            queue.end()
            finished.signal()
        }
        while !queue.isCancelled {
            do {
                let result = try connection.fetchBinary(fetch)
                let full = Int(PQntuples(result)) >= batchRows
                guard queue.push(.batch(ResultPointer(pointer: result))) else {
                    PQclear(result)
                    return
                }
                if !full { return }
            } catch {
                _ = queue.push(.failure(error))
                return
            }
        }
    }
}
