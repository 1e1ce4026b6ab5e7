import Foundation
import FunnelCore
import FunnelIngest
import IngestFixtures
import Testing

@Suite("Hostile input")
struct HostileInputTests {
    @Test("a 10 MB single line is rejected as too long and reading resumes at the next line")
    func hugeLine() throws {
        let scratch = try Scratch()
        var bytes = Array(installsHeader.utf8)
        bytes += Array("e0,app,u,2024-05-01T10:00:00Z,n,,,,,\n".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        bytes += Array("\ne1,app,u,2024-05-01T10:00:00Z,n,,,,,\n".utf8)
        let result = try readAll(try scratch.file("installs.csv", bytes: bytes), batch: 2)
        #expect(result.lines[.installs]?.count == 2)
        #expect(result.rejects.map(\.line) == [3])
        #expect(result.rejects.first?.reason == "record longer than 1 MiB")
        #expect(result.rejects.first?.raw.utf8.count == 4096)
        #expect(result.maxBufferBytes < 4 << 20)
    }

    @Test("a 10 MB NDJSON line without newline at the end is rejected in bounded memory")
    func hugeJSONLine() throws {
        let scratch = try Scratch()
        var bytes = Array(#"{"event_id":"e","app_id":"a","user_id":"u","opened_at":1714557600000}"#.utf8) + [0x0a]
        bytes += Array(#"{"event_id":""#.utf8) + [UInt8](repeating: 0x41, count: 10_000_000)
        let result = try readAll(try scratch.file("opens.ndjson", bytes: bytes))
        #expect(result.lines[.opens]?.count == 1)
        #expect(result.rejects.map(\.reason) == ["record longer than 1 MiB"])
        #expect(result.maxBufferBytes < 4 << 20)
    }

    @Test("a header with 10,000 columns refuses the file")
    func manyColumns() throws {
        let scratch = try Scratch()
        let header = (0..<10_000).map { "c\($0)" }.joined(separator: ",")
        let path = try scratch.file("installs.csv", header + "\n")
        #expect(throws: FileRefusal.tooManyColumns(path: path, count: 10_000, max: 1000)) { _ = try readAll(path) }
        #expect(FileRefusal.tooManyColumns(path: path, count: 10_000, max: 1000).description
            .hasSuffix("header has 10000 columns, at most 1000"))
    }

    @Test("invalid UTF-8 and NUL bytes in a field reject the row, with a valid UTF-8 raw text")
    func badBytes() throws {
        let scratch = try Scratch()
        var bytes = Array(installsHeader.utf8)
        bytes += Array("e1,app,u\u{0}1,2024-05-01T10:00:00Z,n,,,,,\n".utf8)
        bytes += Array("e2,app,u".utf8) + [0xff, 0xfe] + Array(",2024-05-01T10:00:00Z,n,,,,,\n".utf8)
        bytes += Array("e3,app,u3,2024-05-01T10:00:00Z,n,,,c".utf8) + [0xe2, 0x82] + Array(",,\n".utf8)
        let result = try readAll(try scratch.file("installs.csv", bytes: bytes))
        #expect(result.rejects.map(\.reason) == [
            "user_id: contains a NUL byte", "user_id: not valid UTF-8", "campaign: not valid UTF-8",
        ])
        #expect(result.rejects[0].raw == "e1,app,u\u{FFFD}1,2024-05-01T10:00:00Z,n,,,,,")
        #expect(result.rejects[1].raw.hasPrefix("e2,app,u\u{FFFD}\u{FFFD},"))
    }

    @Test("binary content at the start refuses the file")
    func binaryFile() throws {
        let scratch = try Scratch()
        var png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]
        for i in 0..<5000 { png.append(UInt8(truncatingIfNeeded: i &* 31)) }
        let path = try scratch.file("installs.csv", bytes: png)
        #expect(throws: FileRefusal.binary(path: path)) { _ = try readAll(path) }
        let json = try scratch.file("opens.ndjson", bytes: [0x7b, 0x00, 0x01, 0x0a])
        #expect(throws: FileRefusal.binary(path: json)) { _ = try readAll(json) }
        let latin1 = try scratch.file("opens.csv", bytes: Array("event_id,app_id,user_id,opened_at,caf".utf8) + [0xe9, 0x0a])
        #expect(throws: FileRefusal.binary(path: latin1)) { _ = try readAll(latin1) }
    }

    @Test("a quote left open to the end of the file rejects its own line, then reading resumes")
    func unterminatedQuote() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs.csv", installsHeader
            + "e1,app,u,2024-05-01T10:00:00Z,n,,,,,\ne2,app,u,2024-05-01T10:00:00Z,n,,,\"open,,\nmore")
        let result = try readAll(path)
        #expect(result.lines[.installs]?.count == 1)
        #expect(result.rejects.map(\.reason) == [
            "campaign: quoted field not closed on this line (the line is rejected and reading resumes on the next)",
            "record has 1 fields, the header has 10",
        ])
        #expect(result.rejects.map(\.line) == [3, 4])
        #expect(result.accountsForEveryLine)
    }

    @Test("a missing file is refused with a readable message")
    func missingFile() throws {
        #expect(throws: FileRefusal.unreadable(path: "/nonexistent/installs.csv", reason: "No such file or directory")) {
            _ = try readAll("/nonexistent/installs.csv")
        }
    }
}
