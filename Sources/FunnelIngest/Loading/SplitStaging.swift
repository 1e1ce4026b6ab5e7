import Foundation
import FunnelCore
import PostgresClient

/// The staging of one large file by two COPY streams at once (``FileLoader/splitCopyBytes``): the
/// batches the reader parses go in turn to the loader's own connection and to a second one, both
/// COPYing into one unlogged table, so the server's side of the COPY (parsing the text and typing
/// the values, most of the staging's time) runs on two backends. A history's telemetry file, the
/// import's longest load, is the case it is made for.
///
/// The rows of two streams interleave in the table, so its order is not the file's: each row
/// carries its place in the file (`load_seq`, one more per valid row), and the bulk merge keeps
/// the copy of an event with the lowest one, as the daily merge keeps the first. The table is a
/// plain unlogged table because a temporary table is seen by one session only; it is dropped in
/// the file's merge transaction, and a load that died before dropping it leaves it to the next
/// load of the file, which drops it before staging again.
enum SplitStaging {
    /// The staging table of one file (fixed text from the kind and the file id, never from input).
    static func table(_ kind: EventKind, fileID: Int64) -> String {
        "bulk_stage_\(kind.rawValue)_\(fileID)"
    }

    /// The column holding each row's place in the file.
    static let fileOrderColumn = "load_seq"

    /// Writes the COPY text `lines` (one row per newline-terminated line) to a COPY with each
    /// row's place in the file added as a last column, numbered from `firstPlace`. Row by row
    /// into the writer's own buffer, so no second copy of the batch is held.
    static func copyNumbered(_ lines: UnsafeBufferPointer<UInt8>, firstPlace: Int64, to writer: inout CopyInWriter) throws {
        guard let base = lines.baseAddress else { return }
        var suffix: [UInt8] = []
        suffix.reserveCapacity(24)
        var start = 0
        var place = firstPlace
        while start < lines.count {
            let end: Int
            if let newline = memchr(base + start, 0x0a, lines.count - start) {
                end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
            } else {
                end = lines.count
            }
            try writer.write(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: lines[start..<end])))
            suffix.removeAll(keepingCapacity: true)
            suffix.append(0x09)
            NumberParsing.appendInteger(place, to: &suffix)
            suffix.append(0x0a)
            try suffix.withUnsafeBytes { try writer.write($0) }
            place += 1
            start = end + 1
        }
    }
}

/// The second COPY stream of a split staging: a thread with its own connection that COPYs the
/// batches handed to it, in the order given, into the staging table, then gives each batch back
/// to the reader's pipeline. At most the pipeline's batches are in flight, so memory stays
/// bounded.
final class SecondCopyStream: @unchecked Sendable {
    // Safe: `pending`, `closing` and `failure` are read and written only while holding
    // `condition`; `connection` is used only on the stream's own thread after `init`.
    private let condition = NSCondition()
    private var pending: [(sink: RowSink, firstPlace: Int64)] = []
    private var closing = false
    private var failure: (any Error)?
    private let exited = DispatchSemaphore(value: 0)
    private let connection: PostgresConnection

    /// Starts the stream's thread, COPYing rows of `kind` into `table` over `connection` and
    /// handing each batch to `giveBack` once sent.
    init(connection: PostgresConnection, table: String, kind: EventKind, giveBack: @escaping @Sendable (RowSink) -> Void) {
        self.connection = connection
        let thread = Thread { [self] in
            defer { exited.signal() }
            while let job = nextJob() {
                do {
                    if failureSoFar() == nil {
                        try self.connection.copyIn("copy \(table) from stdin") { writer in
                            try job.sink.withCopyData(for: kind) { try SplitStaging.copyNumbered($0, firstPlace: job.firstPlace, to: &writer) }
                        }
                    }
                } catch {
                    fail(error)
                }
                giveBack(job.sink)
            }
        }
        thread.name = "funnel.copy-stream"
        thread.start()
    }

    /// Queues a batch whose first row of the kind is the file's `firstPlace`-th.
    /// - Throws: what an earlier COPY of this stream threw.
    func send(_ sink: RowSink, firstPlace: Int64) throws {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        pending.append((sink, firstPlace))
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

    private func nextJob() -> (sink: RowSink, firstPlace: Int64)? {
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
