#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a byte stream into records in bounded memory: lines for NDJSON, RFC 4180 records (a
/// quoted field may hold line breaks) for CSV.
///
/// The window holds at most one maximal record plus one read chunk. A record longer than the
/// limit is reported as ``Status/tooLong`` with its first bytes, and the scanner skips the rest
/// of it up to the next newline without keeping it.
///
/// A quote that opens a field and never closes validly must cost its own line only, not every
/// line after it (one stray quote in a large file once swallowed the 34,430 rows behind it). So a
/// CSV record only spans lines while it can still be a valid record: when its quoted field runs to
/// the end of the file or past the length limit, the record is cut back to its first line
/// (``Status/unclosedQuote``) and scanning resumes on the next line; and a multi-line record the
/// reader then finds invalid is given back the same way with ``resumeAfterFirstLine()``. Every
/// physical line is therefore either part of one record or blank (``blankLines``).
final class RecordScanner {
    enum Status {
        case complete
        /// Longer than the limit: the record's first bytes only; the rest of the line is skipped.
        case tooLong
        /// A line whose quoted field is not closed on it and cannot be closed validly later:
        /// the record is this line alone.
        case unclosedQuote
    }

    /// One record, valid until the next call to ``next(csv:)``. `bytes` excludes the line
    /// terminator (LF or CRLF); for a too-long record it is the record's first bytes only.
    struct Record {
        var bytes: UnsafeBufferPointer<UInt8>
        /// The physical line (1-based) the record starts on.
        var line: Int64
        /// The physical lines it spans: more than one only for a CSV quoted field holding a line
        /// break.
        var lines: Int64
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
    /// Where the record last returned starts in the window, while it is still there (for
    /// ``resumeAfterFirstLine()``); -1 otherwise.
    private var lastStart = -1
    private var lastLine: Int64 = 0

    /// Physical lines consumed so far: every line of every record returned, and blank lines.
    var linesRead: Int64 { nextLine - 1 }
    /// Empty lines skipped so far (CSV and NDJSON; an NDJSON line of white space is the reader's).
    private(set) var blankLines: Int64 = 0

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

    /// The bytes already in the window (at least `count` if the file has them and the window
    /// can hold them), for sniffing the format before the first record is cut.
    func peek(count: Int) throws(ByteSource.Failure) -> UnsafeBufferPointer<UInt8> {
        while end - start < count && !atEOF {
            let before = end
            try fill()
            if end == before && !atEOF { break }  // the window is full
        }
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
            if record.status == .complete && record.bytes.isEmpty {
                blankLines += 1
                continue
            }
            return record
        }
    }

    /// Takes back all but the first line of the multi-line record last returned by
    /// ``next(csv:)`` (which the reader found invalid): the next record starts on its second
    /// line. Call it before the next call to ``next(csv:)``.
    func resumeAfterFirstLine() {
        precondition(lastStart >= 0, "no multi-line record to give back")
        guard let hit = memchr(window + lastStart, 0x0a, end - lastStart) else { preconditionFailure("no line break") }
        start = window.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
        nextLine = lastLine + 1
        lastStart = -1
    }

    private func fill() throws(ByteSource.Failure) {
        lastStart = -1
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
                if length > maxRecord {
                    if newlines > 0 { return cutToFirstLine(line: line) }
                    return try skipRest(line: line, foundAt: terminator)
                }
                if length > 0 && window[start + length - 1] == 0x0d { length -= 1 }
                let record = Record(
                    bytes: UnsafeBufferPointer(start: window + start, count: length), line: line,
                    lines: newlines + 1, status: .complete)
                lastStart = start
                lastLine = line
                start = terminator + 1
                nextLine = line + newlines + 1
                return record
            }
            scanned = end - start
            if scanned > maxRecord {
                if newlines > 0 { return cutToFirstLine(line: line) }
                return try skipRest(line: line)
            }
            if atEOF {
                guard scanned > 0 else { return nil }
                let unclosed = csv && state == 2
                if unclosed && newlines > 0 { return cutToFirstLine(line: line) }
                var length = scanned
                if window[start + length - 1] == 0x0d { length -= 1 }
                let record = Record(
                    bytes: UnsafeBufferPointer(start: window + start, count: length), line: line,
                    lines: newlines + 1, status: unclosed ? .unclosedQuote : .complete)
                lastStart = start
                lastLine = line
                start = end
                nextLine = line + newlines + 1
                return record
            }
            try fill()
        }
    }

    /// The first line of a record whose quoted field runs past the end of the file or the length
    /// limit: returned alone as an unclosed quote, and scanning resumes on the next line. The
    /// line break is in the window, since the scan has not gone past the limit.
    private func cutToFirstLine(line: Int64) -> Record {
        guard let hit = memchr(window + start, 0x0a, end - start) else { preconditionFailure("no line break") }
        let lineEnd = window.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        var length = lineEnd - start
        if length > 0 && window[start + length - 1] == 0x0d { length -= 1 }
        let record = Record(
            bytes: UnsafeBufferPointer(start: window + start, count: length), line: line, lines: 1,
            status: .unclosedQuote)
        lastStart = -1
        start = lineEnd + 1
        nextLine = line + 1
        return record
    }

    /// Keeps the first bytes of an over-long line, then drops bytes up to and including the
    /// next newline.
    private func skipRest(line: Int64, foundAt: Int? = nil) throws(ByteSource.Failure) -> Record {
        let kept = min(prefixCapacity, end - start)
        prefix.update(from: window + start, count: kept)
        let record = Record(bytes: UnsafeBufferPointer(start: prefix, count: kept), line: line, lines: 1, status: .tooLong)
        lastStart = -1
        nextLine = line + 1
        if let foundAt {
            start = foundAt + 1
            return record
        }
        start = end
        while true {
            if start < end, let hit = memchr(window + start, 0x0a, end - start) {
                start = window.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                return record
            }
            start = 0
            end = 0
            if atEOF { return record }
            try fill()
        }
    }
}
