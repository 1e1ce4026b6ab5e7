import Foundation
import FunnelCore
import FunnelGenerate
import Testing

@Suite("funnel generate: files")
struct GeneratorOutputTests {
    static func generate(_ name: String, seed: UInt64 = 7, format: GeneratorFormat = .csv, gzip: Bool = false,
                         dirty: Bool = false, users: Int = 400, days: Int = 12) throws -> (String, GenerationResult) {
        let directory = StrictReader.temporaryDirectory(name)
        let result = try Generator.run(GeneratorOptions(outputDirectory: directory, users: users, days: days, seed: seed,
                                                        format: format, gzip: gzip, dirty: dirty))
        return (directory, result)
    }

    /// A generated timestamp: Unix epoch milliseconds, or RFC 3339 with a zone and optional fraction.
    static func instant(_ text: String) -> Date? {
        if let milliseconds = Int64(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    static func bytes(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    @Test("the same seed writes byte-identical files; another seed writes different ones")
    func determinism() throws {
        let (a, _) = try Self.generate("det-a")
        let (b, _) = try Self.generate("det-b")
        let (c, _) = try Self.generate("det-c", seed: 8)
        let first = try Self.bytes(a), second = try Self.bytes(b), third = try Self.bytes(c)
        #expect(first.keys.sorted() == second.keys.sorted())
        #expect(first == second)
        #expect(first["installs-2024-05-01.csv"] != third["installs-2024-05-01.csv"])
        #expect(first["truth.json"] != third["truth.json"])
    }

    @Test("every file parses under SPEC's formats, names its kind, and has no invalid row", arguments: [
        GeneratorFormat.csv, .ndjson,
    ])
    func filesParse(format: GeneratorFormat) throws {
        let (directory, result) = try Self.generate("parse-\(format.rawValue)", format: format)
        let files = try StrictReader.dataFiles(directory)
        // Two days of each kind but ad spend's one file; custom events and exchange rates are not generated.
        #expect(files.count == (EventKind.allCases.count - 2) * 2 - 1)
        var total = 0
        for path in files {
            let parsed = try StrictReader.read(path, format: format)
            // Every generated person has a user id: no device_id column; no adset or creative either.
            if format == .csv {
                #expect(parsed.header == parsed.kind.fieldNames.filter { !["device_id", "adset", "creative"].contains($0) }, "\(path)")
            }
            #expect(parsed.invalid == 0, "\(path): \(parsed.reasons.prefix(3))")
            total += parsed.rows.count
            for row in parsed.rows { #expect(row["app_id"] == "com.example.app") }
        }
        #expect(total == result.totalRows)
        #expect(result.truth.dirty.total == 0)
    }

    @Test("timestamps use UTC, a share of non-UTC offsets and epoch milliseconds, all inside the window")
    func timestampVariety() throws {
        let (directory, result) = try Self.generate("ts")
        let parsed = try StrictReader.read(directory + "/opens-2024-05-01.csv", format: .csv)
        let values = parsed.rows.compactMap { $0["opened_at"] }
        #expect(values.contains { $0.hasSuffix("Z") })
        #expect(values.contains { $0.hasSuffix("+02:00") || $0.hasSuffix("-05:00") || $0.hasSuffix("+05:30") || $0.hasSuffix("-07:00") })
        #expect(values.contains { $0.allSatisfy(\.isASCIIDigit) })
        let start = Int64(1_714_521_600_000)
        for value in values {
            let ms = try #require(StrictReader.parseTimestamp(value))
            #expect(ms >= start && ms < start + Int64(result.truth.generator.days) * 86_400_000)
        }
        #expect(result.truth.messiness.nearMidnightInstalls > 0)
    }

    @Test("--dirty writes exactly the invalid rows truth.json counts, every defect of every kind")
    func dirtyRows() throws {
        for format in GeneratorFormat.allCases {
            let (directory, result) = try Self.generate("dirty-\(format.rawValue)", format: format, dirty: true)
            var invalid = 0
            for path in try StrictReader.dataFiles(directory) {
                let parsed = try StrictReader.read(path, format: format)
                invalid += parsed.invalid
                let name = (path as NSString).lastPathComponent
                if let kindTruth = result.truth.dirty.byKind.first(where: { $0.file == name }) {
                    #expect(parsed.invalid == kindTruth.total, "\(name): \(parsed.reasons)")
                    #expect(kindTruth.byDefect.values.allSatisfy { $0 >= 1 }, "\(name)")
                }
            }
            #expect(result.truth.dirty.total > 0)
            #expect(invalid == result.truth.dirty.total)
            #expect(Set(result.truth.dirty.byKind.flatMap(\.byDefect.keys)) == Set(Defect.allCases.map(\.rawValue)))
        }
    }

    @Test("--gzip writes valid gzip files with the same content as the plain files")
    func gzipMatchesPlain() throws {
        let (plain, _) = try Self.generate("gz-plain", format: .ndjson)
        let (compressed, result) = try Self.generate("gz-gz", format: .ndjson, gzip: true)
        for file in result.files {
            #expect(file.name.hasSuffix(".ndjson.gz"))
            let unpacked = try StrictReader.contents(compressed + "/" + file.name)
            let original = try Data(contentsOf: URL(fileURLWithPath: plain + "/" + String(file.name.dropLast(3))))
            #expect(unpacked == original, "\(file.name)")
        }
    }

    @Test("duplicates repeat an event id, also across files; the late file holds rows from before its day")
    func duplicatesAndLateRows() throws {
        let (directory, result) = try Self.generate("dups", users: 1500)
        let main = try StrictReader.read(directory + "/opens-2024-05-01.csv", format: .csv).rows
        let late = try StrictReader.read(directory + "/opens-late-2024-05-13.csv", format: .csv).rows
        let ids = (main + late).compactMap { $0["event_id"] }
        #expect(ids.count - Set(ids).count == result.truth.messiness.duplicates["opens"])
        #expect(Set(ids).count == result.truth.totals.events["opens"])
        // Late rows happened before the late file's day (they arrive a day or more after it), and
        // some of the duplicates repeat a main-file event there (seed 7 plants them).
        #expect(!late.isEmpty)
        let lateDay = try #require(Self.instant("2024-05-13T00:00:00Z"))
        for row in late {
            let openedAt = try #require(row["opened_at"])
            let instant = try #require(Self.instant(openedAt), "unreadable opened_at \(openedAt)")
            #expect(instant < lateDay, "late row opened at \(openedAt)")
        }
        let lateIDs = Set(late.compactMap { $0["event_id"] })
        #expect(!lateIDs.isDisjoint(with: Set(main.compactMap { $0["event_id"] })))
    }

    @Test("ad spend restatements repeat a key later in the file with the final spend")
    func restatements() throws {
        let (directory, result) = try Self.generate("restate", users: 3000, days: 20)
        let rows = try StrictReader.read(directory + "/ad_spend-2024-05-01.csv", format: .csv).rows
        var last: [String: Double] = [:]
        var seen = 0
        for row in rows {
            let key = ["date", "network", "campaign", "country"].map { row[$0] ?? "" }.joined(separator: "|")
            if last[key] != nil { seen += 1 }
            last[key] = Double(row["spend"]!)!
        }
        #expect(seen == result.truth.messiness.adSpendRestatements)
        #expect(seen > 0)
        let total = last.values.reduce(0, +)
        #expect(abs(total - result.truth.totals.spendUsd) < 0.01)
    }

    @Test("invalid options are refused with a message")
    func invalidOptions() {
        #expect(GeneratorOptions(outputDirectory: "/tmp/x", users: 0).problem != nil)
        #expect(GeneratorOptions(outputDirectory: "/tmp/x", startDate: "2024-02-30").problem != nil)
        #expect(GeneratorOptions(outputDirectory: "/tmp/x", appID: "a b").problem != nil)
        #expect(GeneratorOptions(outputDirectory: "/tmp/x").problem == nil)
    }
}
