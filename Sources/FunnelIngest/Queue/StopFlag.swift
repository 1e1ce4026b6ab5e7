import Foundation

/// A stop request shared by the signal handler and the workers: set once, read between batches.
public final class StopFlag: @unchecked Sendable {
    // Safe: `stopped` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var stopped = false

    public init() {}

    /// Whether a stop was requested.
    public var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// Requests a stop.
    public func set() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// Sleeps up to `seconds`, waking early when a stop is requested.
    public func sleep(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while !isSet, Date() < deadline {
            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
    }
}

/// Rows and files processed so far by all workers of a run, for the progress line.
public final class IngestProgress: @unchecked Sendable {
    // Safe: every field is only read and written while holding `lock`.
    private let lock = NSLock()
    private var rows = 0
    private var files = 0

    public init() {}

    func add(rows count: Int) {
        lock.lock()
        rows += count
        lock.unlock()
    }

    func fileDone() {
        lock.lock()
        files += 1
        lock.unlock()
    }

    /// Records read and files finished so far.
    public var snapshot: (rows: Int, files: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (rows, files)
    }
}
