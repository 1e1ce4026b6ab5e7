#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal file writer for the benchmark's sample data (the reader itself never writes).
package final class FileOutput {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var fd: Int32

    package init(path: String) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close() }

    package func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + offset, bytes.count - offset) }
            guard n > 0 else { throw Failure(description: String(cString: strerror(errno))) }
            offset += n
        }
    }

    package func close() {
        if fd >= 0 { systemClose(fd) }
        fd = -1
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

private func systemClose(_ fd: Int32) {
    _ = close(fd)
}
