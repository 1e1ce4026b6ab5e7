import CZlib

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The members of a zip archive read one after the other, by name, as one stream (Amplitude's Export API
/// ships a zip of gzipped hourly NDJSON files): the central directory gives each member's place,
/// method and size; a member is inflated from raw deflate (or copied when stored), and a member
/// named `.gz` is gunzipped as it is inflated. Memory stays bounded: two input buffers and the
/// caller's. Each member ends with a line break, so the records of two members never join.
final class ZipArchive {
    struct Member {
        let name: String
        let method: UInt16
        let compressedSize: Int64
        let localOffset: Int64
    }

    private let fd: Int32
    private(set) var members: [Member] = []
    private var next = 0
    /// Compressed bytes read from the archive so far.
    private(set) var consumed: Int64 = 0

    private static let bufferSize = 256 * 1024
    private let input = UnsafeMutablePointer<UInt8>.allocate(capacity: ZipArchive.bufferSize)
    private let inflated = UnsafeMutablePointer<UInt8>.allocate(capacity: ZipArchive.bufferSize)
    private var raw = z_stream()
    private var gunzip = z_stream()
    private var rawOpen = false
    private var gunzipOpen = false
    private var current: Member?
    private var position: Int64 = 0
    private var remaining: Int64 = 0
    private var rawEnded = false
    private var isGzipMember = false
    private var gunzipEnded = false
    private var lastByte: UInt8 = 0x0a
    private var pendingNewline = false

    /// Takes ownership of `fd` (closed by ``close()``); throws when the archive's directory
    /// cannot be read.
    init(fd: Int32) throws(ByteSource.Failure) {
        self.fd = fd
        do {
            members = try Self.directory(fd)
        } catch {
            closeDescriptor(fd)
            input.deallocate()
            inflated.deallocate()
            throw error
        }
    }

    /// The archive's central directory: its file members in the order of their names (an
    /// export's hourly files by hour), directories and `__MACOSX/` entries left out.
    private static func directory(_ fd: Int32) throws(ByteSource.Failure) -> [Member] {
        let size = Int64(lseek(fd, 0, SEEK_END))
        guard size >= 22 else { throw .badZip("too short for its directory") }
        let tailSize = Int(min(size, 65_557))
        var tail = [UInt8](repeating: 0, count: tailSize)
        guard tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, tailSize, off_t(size - Int64(tailSize))) }) == tailSize else {
            throw .readFailed("cannot read its directory")
        }
        var end = -1
        var i = tailSize - 22
        while i >= 0 {
            if tail[i] == 0x50 && tail[i + 1] == 0x4b && tail[i + 2] == 0x05 && tail[i + 3] == 0x06 { end = i; break }
            i -= 1
        }
        guard end >= 0 else { throw .badZip("no end of central directory record") }
        let count = Int(le16(tail, end + 10))
        let directorySize = Int(le32(tail, end + 12))
        let directoryOffset = Int64(le32(tail, end + 16))
        if count == 0xffff || directoryOffset == 0xffff_ffff {
            throw .badZip("zip64 archives are not read (unzip it and import its files)")
        }
        guard directoryOffset + Int64(directorySize) <= size else { throw .badZip("directory past the end of the file") }
        var directory = [UInt8](repeating: 0, count: directorySize)
        guard directory.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, directorySize, off_t(directoryOffset)) }) == directorySize else {
            throw .readFailed("cannot read its directory")
        }
        var members: [Member] = []
        var p = 0
        for _ in 0..<count {
            guard p + 46 <= directory.count, le32(directory, p) == 0x0201_4b50 else { throw .badZip("bad central directory entry") }
            let method = le16(directory, p + 10)
            let compressed = Int64(le32(directory, p + 20))
            let nameLength = Int(le16(directory, p + 28))
            let extraLength = Int(le16(directory, p + 30))
            let commentLength = Int(le16(directory, p + 32))
            let offset = Int64(le32(directory, p + 42))
            guard p + 46 + nameLength <= directory.count else { throw .badZip("bad central directory entry") }
            let name = String(decoding: directory[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            if compressed == 0xffff_ffff || offset == 0xffff_ffff {
                throw .badZip("zip64 members are not read (unzip it and import its files)")
            }
            if !name.hasSuffix("/") && !name.hasPrefix("__MACOSX/") {
                members.append(Member(name: name, method: method, compressedSize: compressed, localOffset: offset))
            }
            p += 46 + nameLength + extraLength + commentLength
        }
        return members.sorted { $0.name < $1.name }
    }

    private static func le16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    /// Reads up to `count` bytes of the members' contents; 0 after the last member.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(ByteSource.Failure) -> Int {
        while true {
            if pendingNewline {
                destination[0] = 0x0a
                pendingNewline = false
                lastByte = 0x0a
                return 1
            }
            if current == nil {
                guard next < members.count else { return 0 }
                try open(members[next])
                next += 1
            }
            let n = isGzipMember ? try readGunzipped(destination, count) : try readInflated(destination, count)
            if n > 0 {
                lastByte = destination[n - 1]
                return n
            }
            try finishMember()
        }
    }

    private func open(_ member: Member) throws(ByteSource.Failure) {
        var header = [UInt8](repeating: 0, count: 30)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 30, off_t(member.localOffset)) }) == 30,
              Self.le32(header, 0) == 0x0403_4b50 else {
            throw .badZip("zip member \(member.name): no local header where the directory says")
        }
        position = member.localOffset + 30 + Int64(Self.le16(header, 26)) + Int64(Self.le16(header, 28))
        remaining = member.compressedSize
        rawEnded = false
        switch member.method {
        case 0: break
        case 8:
            raw = z_stream()
            guard inflateInit2_(&raw, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw .badZip("zip member \(member.name): zlib could not start inflating")
            }
            rawOpen = true
        default:
            throw .badZip("zip member \(member.name): compression method \(member.method) is not read (deflate or stored)")
        }
        isGzipMember = member.name.hasSuffix(".gz")
        if isGzipMember {
            gunzip = z_stream()
            guard inflateInit2_(&gunzip, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw .badZip("zip member \(member.name): zlib could not start gunzipping")
            }
            gunzipOpen = true
            gunzipEnded = false
        }
        current = member
    }

    private func finishMember() throws(ByteSource.Failure) {
        endStreams()
        current = nil
        if lastByte != 0x0a { pendingNewline = true }
    }

    private func endStreams() {
        if rawOpen { inflateEnd(&raw); rawOpen = false }
        if gunzipOpen { inflateEnd(&gunzip); gunzipOpen = false }
    }

    /// The member's bytes as stored in the archive, inflated: 0 at the member's end.
    private func readInflated(_ destination: UnsafeMutablePointer<UInt8>, _ count: Int) throws(ByteSource.Failure) -> Int {
        let name = current?.name ?? ""
        if !rawOpen {
            guard remaining > 0 else { return 0 }
            let n = pread(fd, destination, Int(min(Int64(count), remaining)), off_t(position))
            guard n > 0 else { throw .readFailed("zip member \(name): the archive ends inside it") }
            position += Int64(n)
            remaining -= Int64(n)
            consumed += Int64(n)
            return n
        }
        while !rawEnded {
            if raw.avail_in == 0 && remaining > 0 {
                let n = pread(fd, input, Int(min(Int64(Self.bufferSize), remaining)), off_t(position))
                guard n > 0 else { throw .readFailed("zip member \(name): the archive ends inside it") }
                position += Int64(n)
                remaining -= Int64(n)
                consumed += Int64(n)
                raw.next_in = input
                raw.avail_in = UInt32(n)
            }
            raw.next_out = destination
            raw.avail_out = UInt32(min(count, Int(UInt32.max)))
            let code = inflate(&raw, Z_NO_FLUSH)
            let produced = min(count, Int(UInt32.max)) - Int(raw.avail_out)
            if code == Z_STREAM_END { rawEnded = true }
            else if code != Z_OK && !(code == Z_BUF_ERROR && produced > 0) {
                throw .badZip("zip member \(name): " + (raw.msg.map { String(cString: $0) } ?? "inflate failed"))
            }
            if produced > 0 { return produced }
            if !rawEnded && raw.avail_in == 0 && remaining == 0 {
                throw .badZip("zip member \(name): its deflate stream is truncated")
            }
        }
        return 0
    }

    /// A `.gz` member's content: its inflated bytes gunzipped (several gzip members in a row
    /// read as one); 0 at the member's end.
    private func readGunzipped(_ destination: UnsafeMutablePointer<UInt8>, _ count: Int) throws(ByteSource.Failure) -> Int {
        let name = current?.name ?? ""
        while true {
            if gunzip.avail_in == 0 {
                let n = try readInflated(inflated, Self.bufferSize)
                if n == 0 {
                    if gunzipEnded || gunzip.total_in == 0 { return 0 }
                    throw .badZip("zip member \(name): its gzip stream is truncated")
                }
                gunzip.next_in = inflated
                gunzip.avail_in = UInt32(n)
            }
            if gunzipEnded {
                inflateReset(&gunzip)
                gunzipEnded = false
            }
            gunzip.next_out = destination
            gunzip.avail_out = UInt32(min(count, Int(UInt32.max)))
            let code = inflate(&gunzip, Z_NO_FLUSH)
            let produced = min(count, Int(UInt32.max)) - Int(gunzip.avail_out)
            if code == Z_STREAM_END {
                gunzipEnded = true
            } else if code != Z_OK && !(code == Z_BUF_ERROR && produced > 0) {
                throw .badZip("zip member \(name): " + (gunzip.msg.map { String(cString: $0) } ?? "gunzip failed"))
            }
            if produced > 0 { return produced }
        }
    }

    /// Closes the archive and frees its buffers.
    func close() {
        endStreams()
        closeDescriptor(fd)
        input.deallocate()
        inflated.deallocate()
    }
}

private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
