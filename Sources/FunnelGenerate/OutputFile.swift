import CZlib
import Foundation

/// A file the generator writes, buffered in memory and flushed in 1 MiB chunks, plain or gzip.
///
/// Rows are formatted straight into `buffer` (see `RowWriter`); a row never spans a flush, so the
/// bytes of the row just written can be copied or moved (duplicates, late events).
package final class OutputFile {
    /// Flush threshold; the buffer keeps `slack` bytes beyond it for the row being written.
    package static let chunk = 1 << 20
    package static let slack = 1 << 16

    package let path: String
    package let buffer: UnsafeMutablePointer<UInt8>
    // The fill level lives behind a pointer rather than in a stored `var`: the hot path touches it
    // for every byte, and a class's stored vars pay a dynamic exclusivity check on each access.
    private let fill: UnsafeMutablePointer<Int>
    package var count: Int {
        @inline(__always) get { fill.pointee }
        @inline(__always) set { fill.pointee = newValue }
    }
    private(set) var bytesWritten = 0
    private var plain: UnsafeMutablePointer<FILE>?
    private var compressed: gzFile?
    private var failure: String?

    package init(path: String, gzip: Bool) throws {
        self.path = path
        buffer = .allocate(capacity: Self.chunk + Self.slack)
        fill = .allocate(capacity: 1)
        fill.initialize(to: 0)
        if gzip {
            // Level 1: generation speed matters more than a few percent of size.
            compressed = gzopen(path, "wb1")
            if compressed == nil { buffer.deallocate(); fill.deallocate(); throw GeneratorError.cannotWrite(path) }
        } else {
            plain = fopen(path, "wb")
            if plain == nil { buffer.deallocate(); fill.deallocate(); throw GeneratorError.cannotWrite(path) }
        }
    }

    deinit {
        if let plain { fclose(plain) }
        if let compressed { gzclose(compressed) }
        buffer.deallocate()
        fill.deallocate()
    }

    /// Makes room for a row of up to `slack` bytes, flushing if the chunk is full.
    @inline(__always)
    package func reserveRow() {
        if count >= Self.chunk { flush() }
    }

    /// Appends raw bytes.
    package func append(_ source: UnsafeRawBufferPointer) {
        if count + source.count > Self.chunk + Self.slack { flush() }
        if source.count > Self.chunk { write(source); return }
        UnsafeMutableRawPointer(buffer + count).copyMemory(from: source.baseAddress!, byteCount: source.count)
        count += source.count
    }

    /// Appends UTF-8 text (headers, rare dirty rows).
    package func append(_ text: String) {
        var copy = text
        copy.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes the buffered bytes to the file.
    package func flush() {
        guard count > 0 else { return }
        write(UnsafeRawBufferPointer(start: buffer, count: count))
        count = 0
    }

    private func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, bytes.count > 0 else { return }
        if let plain {
            if fwrite(bytes.baseAddress, 1, bytes.count, plain) != bytes.count {
                failure = String(cString: strerror(errno))
            }
        } else if let compressed {
            if gzwrite(compressed, bytes.baseAddress, UInt32(bytes.count)) != Int32(bytes.count) {
                failure = "gzip write failed"
            }
        }
        bytesWritten += bytes.count
    }

    /// Flushes and closes the file; throws if any write failed.
    package func close() throws {
        flush()
        var closeFailed = false
        if let plain { closeFailed = fclose(plain) != 0; self.plain = nil }
        if let compressed { closeFailed = gzclose(compressed) != Z_OK; self.compressed = nil }
        if let failure { throw GeneratorError.writeFailed(path, failure) }
        if closeFailed { throw GeneratorError.writeFailed(path, "close failed") }
    }
}

/// Why generation failed: the output could not be written.
public enum GeneratorError: Error, CustomStringConvertible, Equatable {
    case cannotWrite(String)
    case writeFailed(String, String)
    case invalidOptions(String)

    public var description: String {
        switch self {
        case .cannotWrite(let path): "cannot create \(path): check that the directory exists and is writable"
        case .writeFailed(let path, let reason): "writing \(path) failed: \(reason) (is the disk full?)"
        case .invalidOptions(let reason): reason
        }
    }
}
