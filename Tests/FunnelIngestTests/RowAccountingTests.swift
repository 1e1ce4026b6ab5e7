import Foundation
import FunnelCore
import FunnelGenerate
import FunnelIngest
import IngestFixtures
import Testing

/// A malformed record costs that record only, and every physical line of a file is accounted for.
@Suite("Row accounting: no row lost or invented")
struct RowAccountingTests {
    static func row(_ index: Int) -> String { "e\(index),app,u\(index),2024-05-01T10:00:00Z,n,,,,,\n" }

    static let unclosed = "user_id: quoted field not closed on this line (the line is rejected and reading resumes on the next)"

    @Test("an unclosed quote mid-file costs its own line: every row after it loads")
    func unclosedQuoteToTheEnd() throws {
        let scratch = try Scratch()
        var text = installsHeader
        for index in 0..<1000 {
            text += index == 400 ? "e400,app,\"u400,2024-05-01T10:00:00Z,n,,,,,\n" : Self.row(index)
        }
        let result = try readAll(try scratch.file("installs.csv", text), batch: 64)
        #expect(result.lines[.installs]?.count == 999)
        #expect(result.rejects.map(\.line) == [402])
        #expect(result.rejects.map(\.reason) == [Self.unclosed])
        #expect(result.rejects.first?.raw == "e400,app,\"u400,2024-05-01T10:00:00Z,n,,,,,")
        #expect(result.lineCounts.lines == 1001)
        #expect(result.accountsForEveryLine)
    }

    @Test("an unclosed quote followed by more than the record limit: the rows after it load (the 34,430-row loss)")
    func unclosedQuotePastTheLimit() throws {
        let scratch = try Scratch()
        var text = installsHeader
        for index in 0..<40_000 {
            text += index == 10 ? "e10,app,u10,2024-05-01T10:00:00Z,n,,,\"spring,,\n" : Self.row(index)
        }
        let result = try readAll(try scratch.file("installs.csv", text), batch: 5000)
        #expect(result.lines[.installs]?.count == 39_999)
        #expect(result.rejects.map(\.line) == [12])
        #expect(result.rejects.map(\.reason)
            == ["campaign: quoted field not closed on this line (the line is rejected and reading resumes on the next)"])
        #expect(result.lineCounts.lines == 40_001)
        #expect(result.accountsForEveryLine)
    }

    @Test("a quote closed by a later row's quote: only the opening line is rejected, the rows between load")
    func unclosedQuoteClosedLater() throws {
        let scratch = try Scratch()
        var text = installsHeader
        for index in 0..<30 {
            switch index {
            case 10: text += "e10,app,\"u10,2024-05-01T10:00:00Z,n,,,,,\n"
            case 20: text += "e20,app,u20,2024-05-01T10:00:00Z,n,,,\"spring, sale\",,\n"
            default: text += Self.row(index)
            }
        }
        let result = try readAll(try scratch.file("installs.csv", text))
        #expect(result.lines[.installs]?.count == 29)
        #expect(result.value(.installs, "campaign", row: 19) == "spring, sale")
        #expect(result.rejects.map(\.line) == [12])
        #expect(result.rejects.map(\.reason) == [Self.unclosed])
        #expect(result.accountsForEveryLine)
    }

    @Test("a quoted line break that would make a valid-looking record: both lines are rejected on their own")
    func quotedLineBreak() throws {
        let scratch = try Scratch()
        let text = installsHeader + Self.row(1) + "e2,app,\"u2\nx\",2024-05-01T10:00:00Z,n,,,,,\n" + Self.row(3)
        let result = try readAll(try scratch.file("installs.csv", text))
        #expect(result.lines[.installs]?.count == 2)
        #expect(result.rejects.map(\.line) == [3, 4])
        #expect(result.rejects.map(\.reason) == [
            Self.unclosed,
            "event_id: a quote inside an unquoted field (put the whole field in quotes and double the quote)",
        ])
        #expect(result.lineCounts.lines == 5)
        #expect(result.accountsForEveryLine)
    }

    @Test("text after a closing quote, or a quote inside an unquoted field, rejects the row; doubled quotes load")
    func strictQuoting() throws {
        let scratch = try Scratch()
        let text = installsHeader
            + "e1,app,\"u6\"x,2024-05-01T10:00:00Z,n,,,,,\n"
            + "e2,app,u\"6,2024-05-01T10:00:00Z,n,,,,,\n"
            + "e3,app,\"u\"\"7\",2024-05-01T10:00:00Z,n,,,\"a,b\",,\n"
            + "e4,app,u8,2024-05-01T10:00:00Z,\"n\" ,,,,,\n"
        let result = try readAll(try scratch.file("installs.csv", text))
        #expect(result.rejects.map(\.reason) == [
            "user_id: text after the closing quote (put the whole field in quotes and double any quote inside it)",
            "user_id: a quote inside an unquoted field (put the whole field in quotes and double the quote)",
            "network: text after the closing quote (put the whole field in quotes and double any quote inside it)",
        ])
        #expect(result.rejects.map(\.line) == [2, 3, 5])
        #expect(result.lines[.installs]?.count == 1)
        #expect(result.value(.installs, "user_id") == "u\"7")
        #expect(result.value(.installs, "campaign") == "a,b")
    }

    @Test("a header with a quoting error refuses the file")
    func badHeader() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs.csv", "event_id,\"app_id\"x,user_id,installed_at,network\n" + Self.row(1))
        #expect(throws: FileRefusal.badHeader(
            path: path, reason: "column 2: text after the closing quote (put the whole field in quotes and double any quote inside it)")) {
            _ = try readAll(path)
        }
    }

    @Test("blank lines, CRLF and a last line without a break are counted: lines = header + rows + blank")
    func blankLinesAndCRLF() throws {
        let scratch = try Scratch()
        let text = installsHeader.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
            + Self.row(1).replacingOccurrences(of: "\n", with: "\r\n") + "\n\n   \n"
            + String(Self.row(2).dropLast())
        let result = try readAll(try scratch.file("installs.csv", text))
        #expect(result.lines[.installs]?.count == 2)
        #expect(result.rejects.map(\.reason) == ["record has 1 fields, the header has 10"])
        #expect(result.lineCounts == LineCounts(lines: 7, header: 1, blank: 3, continuation: 0))
        #expect(result.rowsRead == 3)
        #expect(result.accountsForEveryLine)

        let json = try readAll(try scratch.file("opens.ndjson",
            "\n" + #"{"event_id":"o1","app_id":"a","user_id":"u","opened_at":1714557600000}"# + "\n \t\n{\"event_id\":\n\n"))
        #expect(json.lines[.opens]?.count == 1)
        #expect(json.rejects.count == 1)
        #expect(json.lineCounts == LineCounts(lines: 5, header: 0, blank: 3, continuation: 0))
        #expect(json.accountsForEveryLine)

        let headerOnly = try readAll(try scratch.file("opens.csv", "event_id,app_id,user_id,opened_at\n\n"))
        #expect(headerOnly.lineCounts == LineCounts(lines: 2, header: 1, blank: 1, continuation: 0))
    }

    @Test("an unterminated quote on the last line rejects that line; a string cut short in NDJSON too")
    func unterminatedAtTheEnd() throws {
        let scratch = try Scratch()
        let csv = try readAll(try scratch.file("installs.csv", installsHeader + Self.row(1) + "e2,app,\"u2,2024-05-01T10:00:00Z,n,,,,,"))
        #expect(csv.rejects.map(\.reason) == [Self.unclosed])
        #expect(csv.lines[.installs]?.count == 1)
        #expect(csv.accountsForEveryLine)
    }

    @Test("a gzip file expanding past the ratio is refused as a likely bomb; past the size too; a genuine one loads")
    func decompressionLimits() throws {
        let scratch = try Scratch()
        let row = Array(Self.row(1).utf8)
        let bomb = try scratch.gzipFile("installs.csv.gz", parts: [Array(installsHeader.utf8), row], times: 200_000)
        var options = testOptions()
        options.expansion = ExpansionLimit(maxRatio: 100, maxBytes: 64 << 30, ratioFloorBytes: 1 << 20)
        var refusal: FileRefusal?
        do { _ = try readAll(bomb, options: options, batch: 10_000) } catch let error as FileRefusal { refusal = error }
        guard case .expandsTooFar(let path, let reason) = refusal else {
            Issue.record("expected the bomb to be refused, got \(String(describing: refusal))")
            return
        }
        #expect(path == bomb)
        #expect(reason.contains("a likely decompression bomb (raise --max-expansion if the file is genuine)"))
        #expect(refusal?.description.hasPrefix("\(bomb): refused: ") == true)

        var genuine = installsHeader
        var state: UInt64 = 42
        for index in 0..<30_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            genuine += "e\(state >> 20),app,u\(state >> 40),2024-05-0\(1 + index % 9)T\(10 + index % 10):00:00Z,n\(state % 7),ios,DE,,,\n"
        }
        let genuinePath = try scratch.gzipFile("installs-genuine.csv.gz", genuine)
        let loaded = try readAll(genuinePath, options: options, batch: 10_000)
        #expect(loaded.lines[.installs]?.count == 30_000)

        options.expansion = ExpansionLimit(maxRatio: 100, maxBytes: 100_000, ratioFloorBytes: 1 << 20)
        #expect(throws: FileRefusal.self) { _ = try readAll(genuinePath, options: options, batch: 10_000) }
        #expect(ExpansionLimit.parseSize("64G") == 64 << 30)
        #expect(ExpansionLimit.parseSize("500MB") == 500 << 20)
        #expect(ExpansionLimit.parseSize("12") == 12)
        #expect(ExpansionLimit.parseSize("x") == nil)
    }

    @Test("loaded through the queue, the file's counts account for every line, and the stored rows are the valid ones")
    func loaderAccounting() throws {
        let db = try LoaderFixture()
        var text = installsHeader
        for index in 0..<5000 {
            text += index == 100 ? "e100,app,\"u100,2024-05-01T10:00:00Z,n,,,,,\n" : Self.row(index)
            if index == 200 { text += "\n" }
        }
        let report = try #require(try db.ingest([try db.file("installs.csv", text)]).first)
        #expect(report.status == .loaded)
        #expect(report.counts == FileLoadCounts(rowsRead: 5000, rowsLoaded: 4999, duplicates: 0, rejected: 1,
                                                lines: LineCounts(lines: 5002, header: 1, blank: 1)))
        #expect(try db.count("select count(*) from raw_installs") == 4999)
        #expect(try db.rows("select line::text, reason from ingest_rejects") == [["102", Self.unclosed]])
        #expect(try db.rows("select lines::text, header_lines::text, blank_lines::text, continuation_lines::text from ingest_files")
            == [["5002", "1", "1", "0"]])
    }

    @Test("one stray old row creates the partition of its month only, not every month up to today's")
    func partitionsOnlyForMonthsWithRows() throws {
        let db = try LoaderFixture()
        let partitions = "select count(*) from pg_inherits where inhparent = 'raw_installs'::regclass"
        let before = try db.count(partitions)
        let path = try db.file("installs.csv", installsHeader
            + "e1,app,u1,2000-01-01T00:00:00Z,n,,,,,\ne2,app,u2,2024-05-01T10:00:00Z,n,,,,,\ne3,app,u3,2024-06-01T10:00:00Z,n,,,,,\n")
        let report = try #require(try db.ingest([path]).first)
        #expect(report.counts.rowsLoaded == 3)
        #expect(try db.count(partitions) - before == 3)
        #expect(try db.rows("""
            select c.relname::text from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = 'raw_installs'::regclass order by 1
            """).map { $0[0] }.suffix(3) == ["raw_installs_2000_01", "raw_installs_2024_05", "raw_installs_2024_06"])
        #expect(FileLoader.monthRuns([24_000, 24_001, 24_003, 23_999]) == [23_999...24_001, 24_003...24_003])
    }

    @Test("the generator's --dirty set: CSV and NDJSON both reject exactly the planted rows and load the same rows")
    func dirtySetMatchesTruth() throws {
        var loaded: [GeneratorFormat: [EventKind: [String]]] = [:]
        for format in [GeneratorFormat.csv, .ndjson] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("funnel-dirty-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let result = try Generator.run(GeneratorOptions(outputDirectory: directory, users: 600, days: 14, seed: 11,
                                                            format: format, gzip: false, dirty: true))
            #expect(result.truth.dirty.total > 0)
            for kindTruth in result.truth.dirty.byKind {
                let read = try readAll(directory + "/" + kindTruth.file, options: ReaderOptions(), batch: 5000)
                #expect(read.rejects.count == kindTruth.total, "\(format) \(kindTruth.file): \(read.rejects.prefix(3))")
                #expect(read.accountsForEveryLine)
                for (kind, lines) in read.lines { loaded[format, default: [:]][kind, default: []] += lines }
            }
        }
        for kind in EventKind.allCases {
            let csv = (loaded[.csv]?[kind] ?? []).sorted()
            let json = (loaded[.ndjson]?[kind] ?? []).sorted()
            #expect(csv.count == json.count, "\(kind.name)")
            #expect(csv == json, "\(kind.name): the CSV and NDJSON loads differ")
        }
    }
}
