import Foundation

/// Reads a file on its own thread while the caller sends the previous batch to PostgreSQL, so
/// parsing and COPY overlap: the server parses COPY text on one core while the client reads and
/// validates on the other. Batches travel through a bounded hand-off (at most `depth` filled
/// sinks wait), so memory stays bounded whatever the file size; empty sinks go back to the
/// reader to be refilled, keeping their buffers' capacity.
final class BatchPipeline: @unchecked Sendable {
    // Safe: every mutable field is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var filled: [RowSink] = []
    private var spare: [RowSink]
    private var failure: (any Error)?
    private var readerDone = false
    private var cancelled = false
    private let readerExited = DispatchSemaphore(value: 0)

    /// Starts reading `path` on a new thread.
    init(path: String, options: ReaderOptions, batchRows: Int, depth: Int = 2) {
        spare = (0..<depth).map { _ in RowSink() }
        let thread = Thread { [self] in
            defer { readerExited.signal() }
            do {
                let reader = try InputFileReader(path: path, options: options)
                while let sink = takeSpare() {
                    var batch = sink
                    batch.reset()
                    guard try reader.readBatch(maxRows: batchRows, into: &batch) else {
                        giveBack(batch)
                        break
                    }
                    deliver(batch)
                }
                finish(nil)
            } catch {
                finish(error)
            }
        }
        thread.name = "funnel.reader"
        thread.start()
    }

    /// The next batch in file order, or nil at the end of the file.
    /// - Throws: what the reader threw (``FileRefusal``, ``ReaderOptionError``).
    func next() throws -> RowSink? {
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty && !readerDone { condition.wait() }
        if !filled.isEmpty { return filled.removeFirst() }
        if let failure { throw failure }
        return nil
    }

    /// Hands a consumed batch back for reuse.
    func recycle(_ sink: RowSink) { giveBack(sink) }

    /// Stops the reader and waits until its thread has let go of the file.
    func close() {
        condition.lock()
        cancelled = true
        filled.removeAll()
        condition.broadcast()
        condition.unlock()
        readerExited.wait()
    }

    private func takeSpare() -> RowSink? {
        condition.lock()
        defer { condition.unlock() }
        while spare.isEmpty && !cancelled { condition.wait() }
        return cancelled ? nil : spare.removeLast()
    }

    private func giveBack(_ sink: RowSink) {
        condition.lock()
        spare.append(sink)
        condition.broadcast()
        condition.unlock()
    }

    private func deliver(_ sink: RowSink) {
        condition.lock()
        if !cancelled { filled.append(sink) }
        condition.broadcast()
        condition.unlock()
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        failure = error
        readerDone = true
        condition.broadcast()
        condition.unlock()
    }
}
