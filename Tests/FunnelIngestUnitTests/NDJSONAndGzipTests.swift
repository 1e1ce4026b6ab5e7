import Foundation
import FunnelCore
import FunnelIngest
import IngestFixtures
import Testing

@Suite("NDJSON, gzip and format detection")
struct NDJSONAndGzipTests {
    @Test("mixed-kind NDJSON routes each row to its kind's buffer by the kind field")
    func mixedKinds() throws {
        let scratch = try Scratch()
        let path = try scratch.file("export.ndjson", """
            {"kind":"installs","event_id":"e1","app_id":"a","user_id":"u","installed_at":"2024-05-01T10:00:00Z","network":"organic"}
            {"kind":"opens","event_id":"e2","app_id":"a","user_id":"u","opened_at":1714557600000}

            {"event_id":"e3","app_id":"a","user_id":"u","opened_at":1714557600000}
            {"kind":"clicks","event_id":"e4"}
            {"kind":"ad_spend","app_id":"a","date":"2024-05-01","network":"unity","spend":"3"}
            """)
        let result = try readAll(path)
        #expect(result.lines[.installs]?.count == 1)
        #expect(result.lines[.opens] == ["e2\ta\tu\t2024-05-01 10:00:00+00\t\\N\t\\N"])
        #expect(result.lines[.adSpend]?.count == 1)
        #expect(result.rejects.map(\.line) == [4, 5])
        #expect(result.rejects[0].reason == "missing field kind (the kind is given neither by --kind nor by the file name)")
        #expect(result.rejects[0].kind == nil)
        #expect(result.rejects[1].reason.hasPrefix("kind: \"clicks\" is not one of installs, opens"))
        #expect(result.rowsRead == 5)
    }

    @Test("a row whose kind field contradicts the file's kind is rejected")
    func conflictingKind() throws {
        let scratch = try Scratch()
        let path = try scratch.file("opens-1.jsonl", """
            {"kind":"installs","event_id":"e2","app_id":"a","user_id":"u","opened_at":1714557600000}
            {"kind":"opens","event_id":"e2","app_id":"a","user_id":"u","opened_at":1714557600000}
            """)
        let result = try readAll(path)
        #expect(result.rejects.map(\.reason) == ["kind: \"installs\" does not match the file's kind opens"])
        #expect(result.lines[.opens]?.count == 1)
    }

    @Test("a gzip file reads exactly like the plain file, detected by magic bytes")
    func gzipEqualsPlain() throws {
        let scratch = try Scratch()
        var text = installsHeader
        for i in 0..<5000 {
            text += "e\(i),app,u\(i % 70),2024-05-01T10:\(String(format2: i % 60)):00Z,net\(i % 3),,\(i % 9 == 0 ? "ZZ" : "us"),,,\n"
        }
        let plain = try readAll(try scratch.file("installs.csv", text), batch: 777)
        let gzipped = try readAll(try scratch.gzipFile("installs.csv.gz", text), batch: 777)
        let disguised = try readAll(try scratch.gzipFile("installs-no-extension", text), batch: 777)
        #expect(plain.lines[.installs]?.count == 5000 - 556)
        #expect(plain.rejects.count == 556)
        #expect(gzipped.lines == plain.lines)
        #expect(gzipped.rejects == plain.rejects)
        #expect(disguised.lines == plain.lines)
        let reader = try InputFileReader(path: scratch.directory.appendingPathComponent("installs-no-extension").path,
                                         options: testOptions())
        #expect(reader.isGzip && reader.format == .csv)
    }

    @Test("the format is sniffed from the first byte when the extension says nothing")
    func sniffing() throws {
        let scratch = try Scratch()
        let json = try InputFileReader(path: try scratch.file("opens-export", "\u{FEFF}  {\"event_id\":\"e\"}\n"),
                                       options: testOptions())
        #expect(json.format == .ndjson && json.kind == .opens)
        let csv = try InputFileReader(path: try scratch.file("opens-export.txt", "event_id,app_id,user_id,opened_at\n"),
                                      options: testOptions())
        #expect(csv.format == .csv)
    }

    @Test("a corrupt gzip stream refuses the file")
    func corruptGzip() throws {
        let scratch = try Scratch()
        let good = try scratch.gzipFile("installs.csv.gz", installsHeader + String(repeating: "e,a,u,2024-05-01T10:00:00Z,n,,,,,\n", count: 2000))
        var bytes = try [UInt8](contentsOf: good)
        bytes = Array(bytes.prefix(bytes.count / 2))
        let truncated = try scratch.file("installs-truncated.csv.gz", bytes: bytes)
        #expect(throws: FileRefusal.self) { _ = try readAll(truncated) }
        var garbled = try [UInt8](contentsOf: good)
        for i in 20..<60 { garbled[i] ^= 0x5a }
        let broken = try scratch.file("installs-broken.csv.gz", bytes: garbled)
        do {
            _ = try readAll(broken)
            Issue.record("a garbled gzip stream was read")
        } catch let refusal as FileRefusal {
            guard case .badGzip = refusal else { Issue.record("unexpected \(refusal)"); return }
            #expect(refusal.description.contains("installs-broken.csv.gz"))
        }
    }

    @Test("an NDJSON file whose first line is not a JSON object is refused")
    func notJSON() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs.ndjson", "\n\nevent_id,app_id\n{\"a\":1}\n")
        #expect(throws: FileRefusal.notNDJSON(path: path)) { _ = try readAll(path) }
        let later = try readAll(try scratch.file("opens.ndjson", "{\"event_id\":\"e\"}\nnot json\n[1,2]\n"))
        #expect(later.rejects.map(\.reason) == ["missing required field app_id", "not a JSON object", "not a JSON object"])
    }
}

extension String {
    init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}

extension Array where Element == UInt8 {
    init(contentsOf path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        self = [UInt8](data)
    }
}
