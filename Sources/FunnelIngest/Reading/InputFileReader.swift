public import FunnelCore
import Foundation

/// Reads one input file (plain or gzip, CSV or NDJSON) in bounded memory, validates every row
/// and encodes the valid ones as PostgreSQL COPY text lines for their kind's raw table.
///
/// The format comes from ``ReaderOptions/format``, else the extension (`.csv`, `.ndjson`,
/// `.jsonl`, `.json`, with `.gz` stripped), else the first byte (`{` means NDJSON). Gzip is
/// detected by its magic bytes. The kind comes from ``ReaderOptions/kind``, else the file name,
/// else (NDJSON only) each line's `kind` field. A file that is not what it claims is refused
/// whole with a ``FileRefusal``; a bad row is returned as a ``RejectedRow``. Not thread-safe: use
/// one reader per file and task.
public final class InputFileReader {
    /// The file being read, as given.
    public let path: String
    /// The detected format.
    public let format: InputFormat
    /// The kind of every row, or nil when each NDJSON line names its own.
    public let kind: EventKind?
    /// Whether the file is gzip-compressed.
    public var isGzip: Bool { source.isGzip }
    /// Bytes of buffer memory the reader holds; bounded by the options, whatever the input.
    public var bufferBytes: Int {
        scanner.memoryFootprint + csv.storeCapacity + json.storeCapacity
    }

    let options: ReaderOptions
    private let source: ByteSource
    /// The vendor export being translated, if the file is one (``VendorSource``).
    let vendor: VendorStream?
    let scanner: RecordScanner
    var encoder: RowEncoder
    var csv = CSVSplitter()
    var json: JSONObjectParser
    var values: [FieldValue]
    /// CSV: header column -> field index of `kind`, or -1 for an ignored column.
    var columnMap: [Int] = []
    /// CSV: the header's column names, for rejection reasons about a column.
    var columnNames: [String] = []
    /// currency_rates only: the ECB's layout, when the header is the ECB's (``ECBLayout``).
    var ecb: ECBLayout?
    /// Lines accounted for: the header's, white-space NDJSON lines, and lines after the first of
    /// multi-line CSV records that loaded; and what earlier batches have already reported.
    private var headerLines: Int64 = 0
    private var whiteSpaceLines: Int64 = 0
    var continuationLines: Int64 = 0
    private var reported = LineCounts()
    /// A record read during `init` (the NDJSON first-line check) and not yet processed.
    private var pending: RecordScanner.Record?
    private var finished = false
    let kindNames = FieldLookup(EventKind.allCases.map(\.name))
    let kindKey = Array("kind".utf8)

    /// Opens `path` and checks that it is what it claims to be.
    /// - Throws: ``FileRefusal`` for a file to refuse whole, ``ReaderOptionError`` for an
    ///   unusable option.
    public init(path: String, options: ReaderOptions) throws {
        self.path = path
        self.options = options
        func zone(_ text: String) throws -> AssumedTimeZone {
            guard let parsed = AssumedTimeZone(text) else { throw ReaderOptionError.unknownTimeZone(text) }
            return parsed
        }
        let fileName = String(path.split(separator: "/").last ?? Substring(path))
        var vendorSource = options.source
        var detected = false
        if vendorSource == nil, options.kind == nil {
            vendorSource = Self.detectVendor(path: path, named: fileName, options: options)
            detected = vendorSource != nil
        }
        // A vendor that writes times without a zone has a default zone of its own (AppsFlyer: UTC).
        let fallbackZone = options.fallbackTimeZone ?? vendorSource?.defaultTimeZone
        // The zone given for the file covers every row; else each app's own, else the fallback.
        var appZones: [String: AssumedTimeZone] = [:]
        if options.assumeTimeZone == nil {
            for (app, text) in options.appTimeZones { appZones[app] = try zone(text) }
        }
        let fileZone = try (options.assumeTimeZone ?? fallbackZone).map(zone)
        let latest = Int64((options.now.timeIntervalSince1970 + 2 * 86_400) * 1_000_000)
        encoder = RowEncoder(latestMicros: latest, zone: fileZone, appZones: appZones, binary: options.binaryLayout)
        json = JSONObjectParser(maxFields: options.maxColumns)
        values = Array(repeating: FieldValue(), count: EventKind.allCases.map { $0.fields.count }.max() ?? 0)
        if let vendorSource {
            let stream: VendorStream
            do {
                stream = try VendorStream(path: path, source: vendorSource, detected: detected, options: options)
            } catch {
                switch error {
                case .refusal(let refusal): throw refusal
                case .source(let failure): throw Self.refusal(failure, path: path)
                }
            }
            if vendorSource.writesZonelessTimes {
                stream.summary.zone = Self.zoneText(options, fallback: fallbackZone, vendor: vendorSource)
            }
            vendor = stream
            source = ByteSource(translating: stream)
        } else {
            vendor = nil
            do {
                source = try ByteSource(path: path, limit: options.expansion)
            } catch {
                throw Self.refusal(error, path: path)
            }
        }
        scanner = RecordScanner(
            source: source, maxRecord: options.maxRecordBytes, chunk: options.readChunkBytes,
            prefixBytes: options.maxRawTextBytes)
        kind = vendor == nil ? options.kind ?? EventKind(fileName: fileName) : nil

        let head: [UInt8]
        do {
            head = Array(try scanner.peek(count: 4096))
        } catch {
            throw Self.refusal(error, path: path)
        }
        var offset = 0
        if head.starts(with: [0xef, 0xbb, 0xbf]) {
            scanner.discard(3)
            offset = 3
        }
        let firstByte = head.dropFirst(offset).first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0d && $0 != 0x0a }
        format = vendor != nil ? .ndjson : options.format ?? InputFormat(fileName: fileName) ?? (firstByte == 0x7b ? .ndjson : .csv)
        switch format {
        case .csv: try readHeader()
        case .ndjson: try checkFirstLine()
        }
    }

    /// The vendor a CSV file's header names unambiguously (``VendorSource/detect(csvColumns:)``),
    /// read from the file's first line; nil when it names none or cannot be read.
    private static func detectVendor(path: String, named fileName: String, options: ReaderOptions) -> VendorSource? {
        guard let probe = try? ByteSource(path: path, limit: options.expansion, readsZip: true) else { return nil }
        defer { probe.release() }
        var head = [UInt8](repeating: 0, count: 64 * 1024)
        var filled = 0
        while filled < head.count {
            let n = head.withUnsafeMutableBufferPointer { buffer in
                (try? probe.read(into: buffer.baseAddress! + filled, count: buffer.count - filled)) ?? 0
            }
            if n == 0 { break }
            filled += n
            if head[..<filled].contains(0x0a) { break }
        }
        var line = head[..<filled]
        if let end = line.firstIndex(of: 0x0a) { line = line[..<end] }
        if line.starts(with: [0xef, 0xbb, 0xbf]) { line = line.dropFirst(3) }
        if line.last == 0x0d { line = line.dropLast() }
        // A line starting with `{` is NDJSON, unless the name says CSV (Adjust's `{adid},...` header):
        // a Segment call has a messageId and a type, a PostHog event a uuid, a distinct_id and an
        // event, an Amplitude event an event_type, an event_time and an amplitude_id, a Firebase
        // row an event_timestamp, a user_pseudo_id and an event_name, which no funnel row has.
        // Of a zip archive's vendors only Amplitude ships one.
        if probe.isZip {
            let text = String(decoding: line, as: UTF8.self)
            let amplitude = text.contains("\"event_type\"") && text.contains("\"event_time\"") && text.contains("\"amplitude_id\"")
            return amplitude ? .amplitude : nil
        }
        if line.first == 0x7b && InputFormat(fileName: fileName) != .csv {
            let text = String(decoding: line, as: UTF8.self)
            if text.contains("\"messageId\"") && text.contains("\"type\"") { return .segment }
            if text.contains("\"uuid\"") && text.contains("\"distinct_id\"") && text.contains("\"event\"") { return .posthog }
            if text.contains("\"event_type\"") && text.contains("\"event_time\"") && text.contains("\"amplitude_id\"") { return .amplitude }
            if text.contains("\"event_timestamp\"") && text.contains("\"user_pseudo_id\"") && text.contains("\"event_name\"") { return .firebase }
            return nil
        }
        var splitter = CSVSplitter()
        let bytes = Array(line)
        return bytes.withUnsafeBufferPointer { record in
            splitter.split(record, maxFields: options.maxColumns)
            guard splitter.problem == nil else { return nil }
            let columns = (0..<splitter.fieldCount).map { column in
                splitter.withField(column, of: record) { String(decoding: $0, as: UTF8.self) }
            }
            return VendorSource.detect(csvColumns: columns)
        }
    }

    /// The zone a vendor's zone-less times are read in, as the summary says it.
    private static func zoneText(_ options: ReaderOptions, fallback: String?, vendor: VendorSource) -> String {
        if let zone = options.assumeTimeZone { return "\(zone) (--assume-tz or the file's [[ingest.files]] rule)" }
        var text: String
        if let configured = options.fallbackTimeZone {
            text = "\(configured) ([ingest] assume_tz)"
        } else {
            text = "\(fallback ?? "UTC") (\(vendor.defaultZoneReason); --assume-tz or [[ingest.apps]] assume_tz sets the app's)"
        }
        if !options.appTimeZones.isEmpty {
            text = "each app's [[ingest.apps]] zone (" + options.appTimeZones.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                .joined(separator: ", ") + "), else " + text
        }
        return text
    }

    private static func refusal(_ error: ByteSource.Failure, path: String) -> FileRefusal {
        switch error {
        case .cannotOpen(let reason), .readFailed(let reason): .unreadable(path: path, reason: reason)
        case .badGzip(let reason): .badGzip(path: path, reason: reason)
        case .badZip(let reason): .badZip(path: path, reason: reason)
        case .expandsTooFar(let reason): .expandsTooFar(path: path, reason: reason)
        }
    }

    private func nextRecord() throws -> RecordScanner.Record? {
        do {
            return try scanner.next(csv: format == .csv)
        } catch {
            throw Self.refusal(error, path: path)
        }
    }

    private static func looksBinary(_ record: RecordScanner.Record) -> Bool {
        if record.bytes.contains(0) { return true }
        // A too-long record is only a prefix: its last character may be cut.
        return record.status != .tooLong && !UTF8Check.validate(record.bytes).valid
    }

    private func readHeader() throws {
        guard let kind else { throw FileRefusal.unknownKind(path: path) }
        guard let header = try nextRecord() else {
            finished = true
            return
        }
        if Self.looksBinary(header) { throw FileRefusal.binary(path: path) }
        if header.status == .tooLong { throw FileRefusal.headerTooLong(path: path, maxBytes: options.maxRecordBytes) }
        headerLines = header.lines
        csv.split(header.bytes, maxFields: Int.max)
        if csv.fieldCount > options.maxColumns {
            throw FileRefusal.tooManyColumns(path: path, count: csv.fieldCount, max: options.maxColumns)
        }
        if header.status == .unclosedQuote || header.lines > 1 {
            throw FileRefusal.badHeader(path: path, reason: "a quoted column name is not closed on the header's line")
        }
        if let problem = csv.problem {
            throw FileRefusal.badHeader(
                path: path, reason: "column \(problem.field + 1): \(Self.describe(problem.kind))")
        }
        columnNames = (0..<csv.fieldCount).map { column in
            csv.withField(column, of: header.bytes) { String(decoding: $0, as: UTF8.self) }
        }
        if kind == .currencyRates {
            let detected = ECBLayout.detect(columnNames.map { $0.trimmingCharacters(in: [" ", "\t"]) })
            if detected.missingUSD { throw FileRefusal.missingColumns(path: path, kind: kind, columns: ["USD"]) }
            if let layout = detected.layout {
                ecb = layout
                return
            }
        }
        let plan = encoder.plans[kind.ordinal]
        var seen = Set<Int>()
        columnMap = (0..<csv.fieldCount).map { column in
            let index = csv.withField(column, of: header.bytes) { name in
                var lo = 0
                var hi = name.count
                while lo < hi && (name[lo] == 0x20 || name[lo] == 0x09) { lo += 1 }
                while hi > lo && (name[hi - 1] == 0x20 || name[hi - 1] == 0x09) { hi -= 1 }
                return plan.lookup.index(of: UnsafeBufferPointer(rebasing: name[lo..<hi]))
            }
            guard let index, seen.insert(index).inserted else { return -1 }
            return index
        }
        // user_id is required unless the file has a device_id column.
        let personMissing = plan.userField.map { !seen.contains($0) } == true && plan.deviceField.map { !seen.contains($0) } == true
        let missing = plan.specs.enumerated().compactMap { index, spec -> String? in
            if index == plan.userField { return personMissing ? "\(spec.name) (or device_id)" : nil }
            return spec.isRequired && !seen.contains(index) ? spec.name : nil
        }
        if !missing.isEmpty {
            throw FileRefusal.missingColumns(path: path, kind: kind, columns: missing)
        }
    }

    private func checkFirstLine() throws {
        while let record = try nextRecord() {
            if record.status == .complete && Self.isBlank(record.bytes) {
                whiteSpaceLines += 1
                continue
            }
            if Self.looksBinary(record) { throw FileRefusal.binary(path: path) }
            let first = record.bytes.first { $0 != 0x20 && $0 != 0x09 }
            if first != 0x7b { throw FileRefusal.notNDJSON(path: path) }
            pending = record
            return
        }
        finished = true
    }

    private static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }
    }

    /// Reads up to `maxRows` records: appends each valid row's COPY line to its kind's buffer in
    /// `sink` and each rejected row to `sink.rejects`, and accounts in `sink` for every physical
    /// line passed (header, records, blank lines). Returns false, having read nothing, once the
    /// file is exhausted; so `while try reader.readBatch(...) { use sink; sink.reset() }`.
    /// - Throws: ``FileRefusal`` when the file turns out unreadable mid-way (a corrupt gzip
    ///   stream, a decompression bomb); the caller must then discard everything read from it.
    public func readBatch(maxRows: Int, into sink: inout RowSink) throws -> Bool {
        var read = 0
        while !finished && read < maxRows {
            let record: RecordScanner.Record
            if let held = pending {
                record = held
                pending = nil
            } else if let next = try nextRecord() {
                record = next
            } else {
                finished = true
                source.release()
                break
            }
            switch format {
            case .csv:
                processCSV(record, into: &sink)
            case .ndjson:
                if record.status == .complete && Self.isBlank(record.bytes) {
                    whiteSpaceLines += 1
                    continue
                }
                if let vendor, let held = vendor.takeReject(line: record.line) {
                    sink.rejects.append(RejectedRow(line: record.line, kind: nil, raw: held.raw, reason: held.reason))
                } else {
                    processJSON(record, into: &sink)
                }
            }
            read += 1
        }
        sink.rowsRead += read
        sink.storedBytesConsumed = source.storedBytesConsumed
        if let vendor { sink.importNote = vendor.summary.note }
        var now = LineCounts(
            lines: scanner.linesRead - (pending.map { $0.lines } ?? 0), header: headerLines,
            blank: scanner.blankLines + whiteSpaceLines, continuation: continuationLines)
        if let vendor, finished {
            // The vendor header's and records' extra lines are empty lines of the translation.
            now.header += vendor.headerLines
            now.continuation += vendor.continuationLines
            now.blank -= vendor.headerLines + vendor.continuationLines
        }
        let batch = now - reported
        reported = now
        sink.lineCounts += batch
        return read > 0 || batch != LineCounts()
    }
}

/// Physical lines of an input file, by what became of them. For a whole file
/// `lines == header + records + blank + continuation`, records being the rows read (loaded,
/// duplicate or rejected): no line goes unaccounted for.
public struct LineCounts: Sendable, Equatable {
    /// Every physical line passed (the last line counts without its line break).
    public var lines: Int64 = 0
    /// The CSV header's lines.
    public var header: Int64 = 0
    /// Empty or white-space-only lines, skipped.
    public var blank: Int64 = 0
    /// Lines after the first of CSV records whose quoted field holds a line break.
    public var continuation: Int64 = 0

    public init(lines: Int64 = 0, header: Int64 = 0, blank: Int64 = 0, continuation: Int64 = 0) {
        self.lines = lines
        self.header = header
        self.blank = blank
        self.continuation = continuation
    }

    public static func + (a: LineCounts, b: LineCounts) -> LineCounts {
        LineCounts(lines: a.lines + b.lines, header: a.header + b.header, blank: a.blank + b.blank,
                   continuation: a.continuation + b.continuation)
    }

    public static func - (a: LineCounts, b: LineCounts) -> LineCounts {
        LineCounts(lines: a.lines - b.lines, header: a.header - b.header, blank: a.blank - b.blank,
                   continuation: a.continuation - b.continuation)
    }

    public static func += (a: inout LineCounts, b: LineCounts) { a = a + b }

    /// The lines that must be records if every line is accounted for.
    public var recordLines: Int64 { lines - header - blank - continuation }
}
