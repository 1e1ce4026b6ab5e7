import CZlib

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the bytes of an input file come from: the file itself, or zlib inflating it.
///
/// Both read straight into a caller's buffer, so memory stays bounded by that buffer whatever the
/// file's size.
final class ByteSource {
    /// Why a source could not be read; the reader turns these into a ``FileRefusal``.
    enum Failure: Error {
        case cannotOpen(String)
        case readFailed(String)
        case badGzip(String)
        /// A zip archive (``ZipArchive``) whose directory or members cannot be read.
        case badZip(String)
        /// The stream expands past its ``ExpansionLimit``.
        case expandsTooFar(String)
    }

    private enum Handle {
        case plain(Int32)
        case gzip(gzFile)
        /// A zip archive's members, one after the other (``ZipArchive``).
        case zip(ZipArchive)
        /// A vendor export read as funnel NDJSON (``VendorStream``).
        case translated(VendorStream)
    }

    private var handle: Handle?
    /// Whether the file starts with the gzip magic bytes (1f 8b).
    let isGzip: Bool
    /// Whether the file is a zip archive read as its members (``init(path:limit:readsZip:)``).
    let isZip: Bool
    /// Bytes read from the file (compressed bytes are not counted: this is what the parser saw).
    private(set) var bytesProduced: Int64 = 0
    /// How far into the file as stored the reads have come (for a .gz file, the compressed bytes
    /// consumed): what a progress line compares with the file's size.
    private(set) var storedBytesConsumed: Int64 = 0
    let limit: ExpansionLimit

    /// `readsZip`: a zip archive (PK 03 04) is read as its members' contents one after the other
    /// (a vendor that ships zips, ``ZipArchive``); else its bytes are read as they are.
    init(path: String, limit: ExpansionLimit = ExpansionLimit(), readsZip: Bool = false) throws(Failure) {
        self.limit = limit
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        var magic: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let got = withUnsafeMutableBytes(of: &magic) { pread(fd, $0.baseAddress, 4, 0) }
        if got < 0 {
            let message = String(cString: strerror(errno))
            close(fd)
            throw .readFailed(message)
        }
        isGzip = got >= 2 && magic.0 == 0x1f && magic.1 == 0x8b
        isZip = readsZip && got == 4 && magic.0 == 0x50 && magic.1 == 0x4b && magic.2 == 0x03 && magic.3 == 0x04
        if isZip {
            handle = .zip(try ZipArchive(fd: fd))
        } else if isGzip {
            // gzdopen takes ownership of the descriptor: gzclose closes it.
            guard let file = gzdopen(fd, "rb") else {
                close(fd)
                throw .badGzip("zlib could not open the stream")
            }
            gzbuffer(file, 256 * 1024)
            handle = .gzip(file)
        } else {
            handle = .plain(fd)
        }
    }

    /// The NDJSON a vendor file translates into: what the reader parses.
    init(translating stream: VendorStream) {
        limit = stream.inner.limit
        isGzip = stream.inner.isGzip
        isZip = stream.inner.isZip
        handle = .translated(stream)
    }

    deinit { release() }

    /// Reads up to `count` bytes into `destination`; returns 0 at the end of the file.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(Failure) -> Int {
        guard let handle else { return 0 }
        switch handle {
        case .plain(let fd):
            while true {
                let n = systemRead(fd, destination, count)
                if n >= 0 {
                    bytesProduced += Int64(n)
                    storedBytesConsumed = bytesProduced
                    return n
                }
                if errno == EINTR { continue }
                throw .readFailed(String(cString: strerror(errno)))
            }
        case .gzip(let file):
            let n = gzread(file, destination, UInt32(min(count, Int(Int32.max))))
            var code: Int32 = 0
            // zlib names a descriptor-opened stream "<fd:N>" in its messages; the caller names the file.
            var message = gzerror(file, &code).map { String(cString: $0) } ?? "inflate failed"
            if message.hasPrefix("<fd:"), let end = message.firstIndex(of: ">"), message[end...].hasPrefix(">: ") {
                message = String(message[message.index(end, offsetBy: 3)...])
            }
            // A truncated stream reads to its end and then reports Z_BUF_ERROR, not n < 0.
            if n < 0 || (n == 0 && code != Z_OK && code != Z_STREAM_END) {
                throw .badGzip(message.isEmpty ? "inflate failed" : message)
            }
            bytesProduced += Int64(n)
            storedBytesConsumed = Int64(gzoffset(file))
            try checkExpansion(gzoffset(file))
            return Int(n)
        case .zip(let archive):
            let n = try archive.read(into: destination, count: count)
            bytesProduced += Int64(n)
            storedBytesConsumed = archive.consumed
            try checkExpansion(Int(archive.consumed))
            return n
        case .translated(let stream):
            let n = try stream.read(into: destination, count: count)
            bytesProduced += Int64(n)
            storedBytesConsumed = stream.inner.storedBytesConsumed
            return n
        }
    }

    /// Refuses a stream that has expanded past the limit, given the compressed bytes consumed.
    private func checkExpansion(_ compressed: Int) throws(Failure) {
        if bytesProduced > limit.maxBytes {
            throw .expandsTooFar("it expands past \(Self.size(limit.maxBytes)) "
                + "(raise --max-decompressed if the file is genuine, or split it)")
        }
        guard bytesProduced > limit.ratioFloorBytes else { return }
        let ratio = Double(bytesProduced) / Double(max(compressed, 1))
        if ratio > limit.maxRatio {
            throw .expandsTooFar("\(Self.size(Int64(compressed))) of gzip expanded to \(Self.size(bytesProduced)), "
                + "more than \(Self.ratioText(limit.maxRatio))x: a likely decompression bomb "
                + "(raise --max-expansion if the file is genuine)")
        }
    }

    private static func ratioText(_ ratio: Double) -> String {
        ratio == ratio.rounded() ? String(Int(ratio)) : String(ratio)
    }

    /// A byte count for messages: `9.4 MB`, `64 MB`, `2.0 GB` (powers of 1000, one decimal under 10).
    static func size(_ bytes: Int64) -> String {
        let units = ["bytes", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        if value < 10 { return "\(Double(Int((value * 10).rounded())) / 10) \(units[unit])" }
        return "\(Int(value.rounded())) \(units[unit])"
    }

    /// Releases the descriptor or zlib stream; later reads return end of file.
    func release() {
        guard let handle else { return }
        switch handle {
        case .plain(let fd): systemClose(fd)
        case .gzip(let file): gzclose(file)
        case .zip(let archive): archive.close()
        case .translated(let stream): stream.inner.release()
        }
        self.handle = nil
    }
}

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(fd, buffer, count)
}

private func systemClose(_ fd: Int32) {
    _ = close(fd)
}
