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

/// Rows, bytes and files processed so far by all workers of a run, for the progress line.
///
/// A file's bytes count twice: once as they are read (and staged), once when its merge commits,
/// since in a history import the merge takes about as long as the reading; so the share done,
/// and the time left drawn from it, move through the merges too instead of stopping at 100%.
public final class IngestProgress: @unchecked Sendable {
    // Safe: every field is only read and written while holding `lock`.
    private let lock = NSLock()
    private var rows = 0
    private var files = 0
    private var bytesRead: Int64 = 0
    private var bytesMerged: Int64 = 0
    private var totalBytes: Int64 = 0

    /// What a progress line shows: records read, files finished, and the share of the work done
    /// (0...1; nil while the run's size is not known).
    public struct Snapshot: Sendable, Equatable {
        public var rows: Int
        public var files: Int
        public var fractionDone: Double?
        /// Bytes (as stored) of the run's files not yet merged.
        public var bytesLeft: Int64

        public init(rows: Int, files: Int, fractionDone: Double?, bytesLeft: Int64) {
            self.rows = rows
            self.files = files
            self.fractionDone = fractionDone
            self.bytesLeft = bytesLeft
        }
    }

    public init() {}

    /// Sets the bytes (as stored) of the files this run loads.
    public func setTotal(bytes: Int64) {
        lock.lock()
        totalBytes = bytes
        lock.unlock()
    }

    func add(rows count: Int, bytes: Int64 = 0) {
        lock.lock()
        rows += count
        bytesRead += bytes
        lock.unlock()
    }

    /// A file is finished (loaded, refused or failed) after `bytes` of it were read.
    func fileDone(bytes: Int64 = 0) {
        lock.lock()
        files += 1
        bytesMerged += bytes
        lock.unlock()
    }

    /// Records read and files finished so far.
    public var snapshot: (rows: Int, files: Int) {
        let full = progress
        return (full.rows, full.files)
    }

    /// Everything a progress line shows.
    public var progress: Snapshot {
        lock.lock()
        defer { lock.unlock() }
        let fraction = totalBytes > 0 ? min(1, Double(bytesRead + bytesMerged) / Double(2 * totalBytes)) : nil
        return Snapshot(rows: rows, files: files, fractionDone: fraction, bytesLeft: max(0, totalBytes - bytesMerged))
    }

    /// The progress line's text: `ingest: 3/15 files, 1204332 rows, 81233 rows/s, 41%, about
    /// 1 min 12 s left` (the share and the time left once they are known).
    public static func line(_ snapshot: Snapshot, totalFiles: Int, elapsed: Double) -> String {
        let rate = Double(snapshot.rows) / max(0.001, elapsed)
        var text = "ingest: \(snapshot.files)/\(totalFiles) files, \(snapshot.rows) rows, \(Int(rate)) rows/s"
        if let fraction = snapshot.fractionDone { text += ", \(Int(fraction * 100))%" }
        if let left = secondsLeft(elapsed: elapsed, fractionDone: snapshot.fractionDone) {
            text += ", about \(durationText(left)) left"
        }
        return text
    }

    /// `45 s`, `3 min 05 s`, `1 h 02 min`.
    public static func durationText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, (whole % 3600) / 60)
    }

    /// The time left at the pace so far, from `elapsed` seconds and the share done; nil before
    /// there is a pace to go by (under 1% done or 2 seconds in).
    public static func secondsLeft(elapsed: Double, fractionDone: Double?) -> Double? {
        guard let fraction = fractionDone, fraction >= 0.01, elapsed >= 2 else { return nil }
        return elapsed * (1 - fraction) / fraction
    }
}
