/// A vendor file read as funnel NDJSON: the file's records (CSV, plain or gzip) are translated
/// one by one into NDJSON lines, each on the vendor record's own line, so the line numbers of
/// rejects and the ingest summary's line account are the vendor file's. The header, a row the
/// vendor marks (test, fraud, blocked), a blank line and the extra lines of a multi-line record
/// become empty lines; a record that cannot be translated becomes `{}` with its reason kept for
/// the reader (``takeReject(line:)``). Memory stays bounded: one record window and one batch of
/// output at a time.
final class VendorStream {
    /// A rejected vendor record, waiting for the reader to reach its line.
    struct Reject {
        let reason: String
        let raw: String
    }

    let source: VendorSource
    /// Whether the vendor was told by the file's header rather than named.
    let detected: Bool
    let inner: ByteSource
    private let scanner: RecordScanner
    private var csv = CSVSplitter()
    private var translator: any VendorTranslator
    private var writer = NDJSONWriter()
    private var readOffset = 0
    private var columnCount = 0
    /// The next physical line of the vendor file the output has not yet given a line to.
    private var nextLine: Int64 = 1
    private var atEnd = false
    private let isNDJSON: Bool
    private let maxRawTextBytes: Int
    private var rejects: [Int64: Reject] = [:]
    /// The header's lines and the lines after the first of multi-line records translated or
    /// marked: empty lines in the output, counted by the reader as header and continuation lines.
    private(set) var headerLines: Int64 = 0
    private(set) var continuationLines: Int64 = 0
    /// What the summary says about the file beyond the counts.
    var summary: VendorSummary

    init(path: String, source: VendorSource, detected: Bool, options: ReaderOptions) throws(FileRefusalOrSource) {
        self.source = source
        self.detected = detected
        maxRawTextBytes = options.maxRawTextBytes
        do {
            inner = try ByteSource(path: path, limit: options.expansion, readsZip: source == .amplitude)
        } catch {
            throw .source(error)
        }
        scanner = RecordScanner(source: inner, maxRecord: options.maxRecordBytes, chunk: options.readChunkBytes,
                                prefixBytes: options.maxRawTextBytes)
        translator = source.makeTranslator(revenueMinorUnits: options.revenueMinorUnits, appID: options.appID)
        summary = VendorSummary(source: source, detected: detected)
        isNDJSON = translator.isNDJSON
        if isNDJSON {
            do {
                let head = try scanner.peek(count: 3)
                if head.starts(with: [0xef, 0xbb, 0xbf]) { scanner.discard(3) }
            } catch {
                throw .source(error)
            }
            return
        }
        do {
            let head = try scanner.peek(count: 3)
            if head.starts(with: [0xef, 0xbb, 0xbf]) { scanner.discard(3) }
            guard let header = try scanner.next(csv: true) else {
                atEnd = true
                return
            }
            if header.bytes.contains(0) { throw FileRefusalOrSource.refusal(.binary(path: path)) }
            if header.status == .tooLong { throw FileRefusalOrSource.refusal(.headerTooLong(path: path, maxBytes: options.maxRecordBytes)) }
            csv.split(header.bytes, maxFields: Int.max)
            if csv.fieldCount > options.maxColumns {
                throw FileRefusalOrSource.refusal(.tooManyColumns(path: path, count: csv.fieldCount, max: options.maxColumns))
            }
            columnCount = csv.fieldCount
            let columns = (0..<csv.fieldCount).map { column in
                csv.withField(column, of: header.bytes) { String(decoding: $0, as: UTF8.self) }
            }
            do {
                summary.unstored = try translator.prepare(columns: columns)
            } catch {
                throw FileRefusalOrSource.refusal(.vendorHeader(path: path, source: source.displayName, reason: error.reason))
            }
            headerLines = header.lines
            emitEmptyLines(through: header.line + header.lines - 1)
        } catch let error as ByteSource.Failure {
            throw .source(error)
        } catch let error as FileRefusalOrSource {
            throw error
        } catch {
            preconditionFailure("unexpected \(error)")
        }
    }

    /// Takes the rejection of the record on `line`, if the translator rejected it.
    func takeReject(line: Int64) -> Reject? {
        guard !rejects.isEmpty else { return nil }
        return rejects.removeValue(forKey: line)
    }

    /// Copies up to `count` bytes of NDJSON into `destination`; 0 at the end.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(ByteSource.Failure) -> Int {
        if readOffset >= writer.out.count {
            writer.out.removeAll(keepingCapacity: true)
            readOffset = 0
            try fill(atLeast: count)
        }
        let n = min(count, writer.out.count - readOffset)
        guard n > 0 else { return 0 }
        writer.out.withUnsafeBufferPointer { buffer in
            destination.update(from: buffer.baseAddress! + readOffset, count: n)
        }
        readOffset += n
        return n
    }

    private func fill(atLeast count: Int) throws(ByteSource.Failure) {
        while !atEnd && writer.out.count < count {
            guard let record = try scanner.next(csv: !isNDJSON) else {
                atEnd = true
                emitEmptyLines(through: scanner.linesRead)
                inner.release()
                break
            }
            emitEmptyLines(through: record.line - 1)
            translate(record)
        }
    }

    private func emitEmptyLines(through line: Int64) {
        while nextLine <= line {
            writer.out.append(0x0a)
            nextLine += 1
        }
    }

    private func translate(_ record: RecordScanner.Record) {
        var record = record
        let outcome: VendorRowOutcome
        if record.status == .tooLong {
            outcome = .rejected("record longer than \(InputFileReader.byteSize(scanner.maxRecord))")
        } else if isNDJSON {
            if record.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) {
                // A white-space line stays one for the reader, which counts it as blank.
                writer.out.append(0x0a)
                nextLine = record.line + 1
                return
            }
            let start = writer.out.count
            let translated = translator.translate(json: record.bytes, into: &writer)
            if case .row = translated {
                outcome = .row
            } else {
                writer.out.removeSubrange(start...)
                outcome = translated
            }
        } else {
            csv.split(record.bytes, maxFields: columnCount)
            if let problem = csv.problem {
                if record.lines > 1 {
                    // As the reader does: an invalid multi-line record costs its first line alone.
                    var length = record.bytes.firstIndex(of: 0x0a) ?? record.bytes.count
                    if length > 0 && record.bytes[length - 1] == 0x0d { length -= 1 }
                    record.bytes = UnsafeBufferPointer(rebasing: record.bytes[0..<length])
                    record.lines = 1
                    scanner.resumeAfterFirstLine()
                }
                outcome = .rejected("column \(problem.field + 1): \(InputFileReader.describe(problem.kind))")
            } else if csv.fieldCount != columnCount {
                let found = csv.fieldCount > columnCount ? "more than \(columnCount)" : "\(csv.fieldCount)"
                outcome = .rejected("record has \(found) fields, the header has \(columnCount)")
            } else {
                let start = writer.out.count
                let translated = csv.withFieldBytes(of: record.bytes) { store in
                    translator.translate(VendorRow(store: store, starts: csv.starts, counts: csv.counts), into: &writer)
                }
                if case .row = translated {
                    outcome = .row
                } else {
                    writer.out.removeSubrange(start...)
                    outcome = translated
                }
            }
        }
        switch outcome {
        case .row:
            writer.out.append(0x0a)
            continuationLines += record.lines - 1
        case .marked(let label):
            summary.mark(label, line: record.line)
            writer.out.append(0x0a)
            continuationLines += record.lines - 1
        case .rejected(let reason):
            rejects[record.line] = Reject(reason: reason, raw: UTF8Check.displayText(record.bytes, limit: maxRawTextBytes, ellipsis: false))
            writer.out.append(contentsOf: [0x7b, 0x7d, 0x0a])
        }
        nextLine = record.line + 1
        emitEmptyLines(through: record.line + record.lines - 1)
    }
}

/// What opening a vendor file can fail with: a refusal, or the source's own failure.
enum FileRefusalOrSource: Error {
    case refusal(FileRefusal)
    case source(ByteSource.Failure)
}

/// What a vendor import says in the ingest summary beyond the counts: which vendor and how it
/// was told, the zone its zone-less times were read in, the rows the vendor marks and the
/// columns not stored (docs/imports.md).
public struct VendorSummary: Sendable, Equatable {
    /// Rows the vendor marks, by label: how many and their first lines.
    public struct Marked: Sendable, Equatable {
        public var rows = 0
        public var firstLines: [Int64] = []
    }

    public let source: VendorSource
    public let detected: Bool
    /// The zone zone-less times were read in, as said to the user; nil: the vendor writes zones.
    public var zone: String?
    public var marked: [String: Marked] = [:]
    /// Columns no funnel field takes: kept as event properties, not stored on other kinds.
    public var unstored: [String] = []

    mutating func mark(_ label: String, line: Int64) {
        var entry = marked[label, default: Marked()]
        entry.rows += 1
        if entry.firstLines.count < 5 { entry.firstLines.append(line) }
        marked[label] = entry
    }

    /// The summary's note, e.g. `read as AppsFlyer raw data (--source); times without a zone
    /// read in UTC (...); 2 rows marked blocked by the vendor, not loaded (lines 4, 9); ...`.
    public var note: String {
        let told = source.isNDJSONExport ? "told by its records' shape" : "told by its header"
        var parts = ["read as \(source.displayName) (\(detected ? told : "--source or its file rule"))"]
        if let zone { parts.append("times without a zone read in \(zone)") }
        for (label, entry) in marked.sorted(by: { $0.key < $1.key }) {
            let lines = entry.firstLines.map(String.init).joined(separator: ", ") + (entry.rows > entry.firstLines.count ? ", ..." : "")
            parts.append("\(entry.rows) row\(entry.rows == 1 ? "" : "s") \(label), not loaded (line\(entry.firstLines.count == 1 ? "" : "s") \(lines))")
        }
        if !unstored.isEmpty {
            let shown = unstored.prefix(8).joined(separator: ", ") + (unstored.count > 8 ? " and \(unstored.count - 8) more" : "")
            parts.append("\(unstored.count) column\(unstored.count == 1 ? "" : "s") kept as event properties only, not stored on installs or purchases: \(shown)")
        }
        return parts.joined(separator: "; ")
    }
}

/// A vendor file's translation written out as funnel NDJSON: the same rows in funnel's own
/// contract (`funnel bench ingest --vendor` loads both to compare their throughput).
package enum VendorTranslation {
    /// Writes the NDJSON `path` translates into (one line per vendor line) to `output`.
    package static func writeNDJSON(from path: String, source: VendorSource, to output: String) throws {
        let stream: VendorStream
        do {
            stream = try VendorStream(path: path, source: source, detected: false, options: ReaderOptions())
        } catch {
            switch error {
            case .refusal(let refusal): throw refusal
            case .source(let failure): throw FileRefusal.unreadable(path: path, reason: "\(failure)")
            }
        }
        let file = try FileOutput(path: output)
        defer { file.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try stream.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { break }
            try file.write(Array(buffer[0..<n]))
        }
    }
}
