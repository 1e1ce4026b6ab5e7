import Crypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The content checksum that makes a file load at most once: SHA-256 of its bytes as stored (a
/// .gz file is hashed compressed), from swift-crypto, whose SHA-256 uses the CPU's SHA
/// instructions where there are some (docs/performance-log.md has the measurement that chose it).
public enum FileChecksum {
    /// Why a file's checksum could not be computed.
    public struct FileError: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): cannot read the file: \(reason)" }
    }

    /// The lower-case hex SHA-256 digest of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        hex(digest: SHA256.hash(data: bytes))
    }

    /// Streams a file's bytes through SHA-256 in 1 MiB reads; returns the hex digest and the size
    /// in bytes.
    public static func file(at path: String) throws(FileError) -> (hex: String, size: Int64) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
        defer { _ = close(fd) }
        var hasher = SHA256()
        var size: Int64 = 0
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (hex(digest: hasher.finalize()), size)
    }

    private static func hex(digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
