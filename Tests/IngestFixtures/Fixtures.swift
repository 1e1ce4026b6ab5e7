import CZlib
public import Foundation
public import FunnelCore
public import FunnelIngest

/// Temporary input files and a helper that reads one completely.
public final class Scratch {
    public let directory: URL

    public init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("funnel-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    public func file(_ name: String, _ text: String) throws -> String {
        try file(name, bytes: Array(text.utf8))
    }

    public func file(_ name: String, bytes: [UInt8]) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes `text` gzip-compressed with zlib's gzwrite.
    public func gzipFile(_ name: String, _ text: String) throws -> String {
        try gzipFile(name, parts: [Array(text.utf8)])
    }

    /// Writes the parts, each repeated `times`, as one gzip stream (a large expansion costs
    /// no memory here).
    public func gzipFile(_ name: String, parts: [[UInt8]], times: Int = 1) throws -> String {
        let path = directory.appendingPathComponent(name).path
        guard let gz = gzopen(path, "wb9") else { throw CocoaError(.fileWriteUnknown) }
        for var bytes in parts {
            for _ in 0..<times {
                _ = bytes.withUnsafeMutableBytes { gzwrite(gz, $0.baseAddress, UInt32($0.count)) }
            }
        }
        gzclose(gz)
        return path
    }
}

/// Everything a reader produced from one file.
public struct ReadResult {
    public var lines: [EventKind: [String]] = [:]
    public var rejects: [RejectedRow] = []
    public var rowsRead = 0
    public var lineCounts = LineCounts()
    public var bounds: [EventKind: TimeBounds] = [:]
    public var maxBufferBytes = 0

    /// Whether every physical line is the header, blank, or part of a record read.
    public var accountsForEveryLine: Bool { lineCounts.recordLines == Int64(rowsRead) }

    /// The single COPY line of `kind`'s only row, split into its columns.
    public func columns(_ kind: EventKind, row: Int = 0) -> [String] {
        (lines[kind] ?? [])[row].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }

    /// The named column of `kind`'s row as written in the COPY line.
    public func value(_ kind: EventKind, _ field: String, row: Int = 0) -> String? {
        guard let index = kind.fieldNames.firstIndex(of: field), (lines[kind]?.count ?? 0) > row else { return nil }
        return columns(kind, row: row)[index]
    }
}

public func readAll(_ path: String, options: ReaderOptions = testOptions(), batch: Int = 3) throws -> ReadResult {
    let reader = try InputFileReader(path: path, options: options)
    var sink = RowSink()
    var result = ReadResult()
    while try reader.readBatch(maxRows: batch, into: &sink) {
        for (kind, data) in sink.copyData {
            let text = String(decoding: data, as: UTF8.self)
            result.lines[kind, default: []] += text.split(separator: "\n").map(String.init)
            if let bounds = sink.timeBounds(for: kind) {
                if var known = result.bounds[kind] {
                    known.earliestMicros = min(known.earliestMicros, bounds.earliestMicros)
                    known.latestMicros = max(known.latestMicros, bounds.latestMicros)
                    result.bounds[kind] = known
                } else {
                    result.bounds[kind] = bounds
                }
            }
        }
        result.rejects += sink.rejects
        result.rowsRead += sink.rowsRead
        result.lineCounts += sink.lineCounts
        result.maxBufferBytes = max(result.maxBufferBytes, reader.bufferBytes)
        sink.reset()
    }
    return result
}

/// "Now" fixed at 2024-06-01T00:00:00Z so date checks are reproducible.
public let testNow = Date(timeIntervalSince1970: 1_717_200_000)

public func testOptions(kind: EventKind? = nil, assumeTimeZone: String? = nil) -> ReaderOptions {
    ReaderOptions(kind: kind, assumeTimeZone: assumeTimeZone, now: testNow)
}

public let installsHeader = "event_id,app_id,user_id,installed_at,network,platform,country,campaign,referrer_user_id,invite_id\n"
