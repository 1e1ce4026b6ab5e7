#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a byte stream into records in bounded memory: lines for NDJSON, RFC 4180 records (a
/// quoted field may hold newlines) for CSV.
///
/// The window holds at most one maximal record plus one read chunk. A record longer than the
/// limit is reported as ``Status/tooLong`` with its first bytes, and the scanner skips the rest
/// of it up to the next newline without keeping it.
final class RecordScanner {
    enum Status {
        case complete
        case tooLong
        case unterminatedQuote
    }

    /// One record, valid until the next call to ``next(csv:)``. `bytes` excludes the line
    /// terminator (LF or CRLF); for a too-long record it is the record's first bytes only.
    struct Record {
        var bytes: UnsafeBufferPointer<UInt8>
        /// The physical line (1-based) the record starts on.
        var line: Int64
        var status: Status
    }

    private let source: ByteSource
    private let window: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private let chunk: Int
    let maxRecord: Int
    private let prefix: UnsafeMutablePointer<UInt8>
    private let prefixCapacity: Int
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var nextLine: Int64 = 1

    /// Bytes of window memory the scanner holds (for bounded-memory checks).
    var memoryFootprint: Int { capacity + prefixCapacity }

    init(source: ByteSource, maxRecord: Int, chunk: Int, prefixBytes: Int) {
        self.source = source
        self.maxRecord = maxRecord
        self.chunk = chunk
        capacity = maxRecord + chunk + 64
        window = .allocate(capacity: capacity)
        prefixCapacity = prefixBytes
        prefix = .allocate(capacity: prefixBytes)
    }

    deinit {
        window.deallocate()
        prefix.deallocate()
    }

    /// The bytes already in the window (at least `count` if the file has them), for sniffing
    /// the format before the first record is cut.
    func peek(count: Int) throws(ByteSource.Failure) -> UnsafeBufferPointer<UInt8> {
        while end - start < count && !atEOF { try fill() }
        return UnsafeBufferPointer(start: window + start, count: min(end - start, count))
    }

    /// Drops `count` bytes already seen with ``peek(count:)`` (a byte-order mark).
    func discard(_ count: Int) {
        start += min(count, end - start)
    }

    /// The next non-empty record, or nil at the end of the stream.
    func next(csv: Bool) throws(ByteSource.Failure) -> Record? {
        while true {
            guard let record = try scan(csv: csv) else { return nil }
            if record.status == .complete && record.bytes.isEmpty { continue }
            return record
        }
    }

    private func fill() throws(ByteSource.Failure) {
        if capacity - end < chunk {
            if start > 0 {
                memmove(window, window + start, end - start)
                end -= start
                start = 0
            }
        }
        let room = min(chunk, capacity - end)
        guard room > 0 else { return }
        let n = try source.read(into: window + end, count: room)
        if n == 0 { atEOF = true }
        end += n
    }

    /// Finds the end of the record that starts at `start`.
    private func scan(csv: Bool) throws(ByteSource.Failure) -> Record? {
        let line = nextLine
        var scanned = 0  // bytes of the record already scanned, relative to `start`
        var newlines: Int64 = 0
        // CSV states: 0 field start, 1 unquoted field, 2 inside quotes, 3 quote inside quotes.
        var state = 0
        while true {
            var i = start + scanned
            var terminator = -1
            if csv {
                while i < end {
                    let b = window[i]
                    if state == 2 {
                        if b == 0x22 { state = 3 } else if b == 0x0a { newlines += 1 }
                    } else if b == 0x0a {
                        terminator = i
                        break
                    } else if b == 0x2c {
                        state = 0
                    } else if b == 0x22 {
                        if state != 1 { state = 2 }
                    } else {
                        state = 1
                    }
                    i += 1
                }
            } else if i < end, let hit = memchr(window + i, 0x0a, end - i) {
                terminator = window.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            } else {
                i = end
            }
            if terminator >= 0 {
                var length = terminator - start
                if length > maxRecord { return try skipRest(line: line, newlines: newlines, foundAt: terminator) }
                if length > 0 && window[start + length - 1] == 0x0d { length -= 1 }
                let record = Record(
                    bytes: UnsafeBufferPointer(start: window + start, count: length), line: line,
                    status: .complete)
                start = terminator + 1
                nextLine = line + newlines + 1
                return record
            }
            scanned = end - start
            if scanned > maxRecord { return try skipRest(line: line, newlines: newlines) }
            if atEOF {
                guard scanned > 0 else { return nil }
                var length = scanned
                if window[start + length - 1] == 0x0d { length -= 1 }
                let record = Record(
                    bytes: UnsafeBufferPointer(start: window + start, count: length), line: line,
                    status: csv && state == 2 ? .unterminatedQuote : .complete)
                start = end
                nextLine = line + newlines
                return record
            }
            try fill()
        }
    }

    /// Keeps the first bytes of an over-long record, then drops bytes up to and including the
    /// next newline (quotes no longer matter: this is how the reader resynchronises).
    private func skipRest(line: Int64, newlines: Int64, foundAt: Int? = nil) throws(ByteSource.Failure) -> Record {
        let kept = min(prefixCapacity, end - start)
        prefix.update(from: window + start, count: kept)
        let record = Record(bytes: UnsafeBufferPointer(start: prefix, count: kept), line: line, status: .tooLong)
        if let foundAt {
            start = foundAt + 1
            nextLine = line + newlines + 1
            return record
        }
        start = end
        while true {
            if start < end, let hit = memchr(window + start, 0x0a, end - start) {
                start = window.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                nextLine = line + newlines + 1
                return record
            }
            start = 0
            end = 0
            if atEOF {
                nextLine = line + newlines
                return record
            }
            try fill()
        }
    }
}
