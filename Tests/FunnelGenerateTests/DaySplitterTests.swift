import Foundation
import FunnelCore
import FunnelGenerate
import Testing

@Suite("DaySplitter: history and the last day")
struct DaySplitterTests {
    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    /// Reads the UTC date of a time field with Foundation (independently of the splitter).
    struct UTCDateReader {
        let day = DateFormatter()
        let instant = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()

        init() {
            day.dateFormat = "yyyy-MM-dd"
            day.timeZone = TimeZone(identifier: "UTC")
            day.locale = Locale(identifier: "en_US_POSIX")
            fractional.formatOptions.insert(.withFractionalSeconds)
        }

        func date(_ text: String) -> String? {
            if text.allSatisfy(\.isNumber), let ms = Double(text) { return day.string(from: Date(timeIntervalSince1970: ms / 1000)) }
            if text.count == 10 { return text }
            return (instant.date(from: text) ?? fractional.date(from: text)).map(day.string(from:))
        }
    }

    @Test("rows go to the side of their UTC date; offsets, epoch milliseconds and quoted newlines are handled")
    func handWritten() throws {
        let directory = StrictReader.temporaryDirectory("split-hand")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let input = directory + "/opens.csv"
        try Data("""
            event_id,app_id,user_id,opened_at,session_seconds
            o1,app,u1,2024-05-09T23:59:59Z,10
            o2,app,u1,2024-05-10T00:00:00Z,10
            o3,app,u2,2024-05-10T01:00:00+02:00,10
            o4,app,u2,2024-05-09T23:30:00-02:00,10
            o5,app,u3,1715299200000,10
            "o6","app","u,3","2024-05-11T08:00:00.250Z",10
            "o7
            continued",app,u4,2024-05-01T00:00:00Z,10
            o8,app,u5,not-a-time,10

            o9,app,u5,2024-05-10T12:00:00Z,7
            """.utf8).write(to: URL(fileURLWithPath: input))
        let splitter = try #require(DaySplitter(kind: .opens, cutoffDate: "2024-05-10"))
        let counts = try splitter.split(input, before: directory + "/before.csv", onOrAfter: directory + "/after.csv")
        #expect(counts == DaySplitter.Counts(before: 4, onOrAfter: 5, unreadable: 1))
        #expect(try Self.lines(directory + "/before.csv") == [
            "event_id,app_id,user_id,opened_at,session_seconds",
            "o1,app,u1,2024-05-09T23:59:59Z,10",
            "o3,app,u2,2024-05-10T01:00:00+02:00,10",
            "\"o7", "continued\",app,u4,2024-05-01T00:00:00Z,10",
            "o8,app,u5,not-a-time,10",
        ])
        #expect(try Self.lines(directory + "/after.csv") == [
            "event_id,app_id,user_id,opened_at,session_seconds",
            "o2,app,u1,2024-05-10T00:00:00Z,10",
            "o4,app,u2,2024-05-09T23:30:00-02:00,10",
            "o5,app,u3,1715299200000,10",
            "\"o6\",\"app\",\"u,3\",\"2024-05-11T08:00:00.250Z\",10",
            "o9,app,u5,2024-05-10T12:00:00Z,7",
        ])
        #expect(DaySplitter(kind: .opens, cutoffDate: "2024-13-01") == nil)
        #expect(throws: DaySplitter.Failure.self) {
            try #require(DaySplitter(kind: .installs, cutoffDate: "2024-05-10"))
                .split(input, before: directory + "/b.csv", onOrAfter: directory + "/a.csv")
        }
    }

    @Test("every generated file splits with its header on both sides, no row lost, each row on its date's side")
    func generatedFiles() throws {
        let directory = StrictReader.temporaryDirectory("split-generated")
        let result = try Generator.run(GeneratorOptions(outputDirectory: directory, users: 1500, days: 6, seed: 3))
        let cutoff = "2024-05-06"
        var after = 0
        let reader = UTCDateReader()
        for file in result.files {
            let kind = try #require(EventKind(rawValue: file.kind))
            let input = directory + "/" + file.name
            let beforePath = directory + "/before-" + file.name, afterPath = directory + "/after-" + file.name
            let counts = try #require(DaySplitter(kind: kind, cutoffDate: cutoff)).split(input, before: beforePath, onOrAfter: afterPath)
            let original = try Self.lines(input), before = try Self.lines(beforePath), onOrAfter = try Self.lines(afterPath)
            #expect(before.first == original.first && onOrAfter.first == original.first, "\(file.name): header kept")
            #expect(before.count - 1 == counts.before && onOrAfter.count - 1 == counts.onOrAfter)
            #expect(counts.before + counts.onOrAfter == original.count - 1, "\(file.name): no row lost")
            #expect(counts.before + counts.onOrAfter == file.rows)
            #expect(counts.unreadable == 0)
            #expect(Set(before.dropFirst()).union(onOrAfter.dropFirst()) == Set(original.dropFirst()))
            let column = try #require(original[0].split(separator: ",").map(String.init).firstIndex(of: kind.timeField))
            for row in before.dropFirst() {
                let date = try #require(reader.date(String(row.split(separator: ",", omittingEmptySubsequences: false)[column])))
                #expect(date < cutoff, "\(file.name): \(row)")
            }
            for row in onOrAfter.dropFirst() {
                let date = try #require(reader.date(String(row.split(separator: ",", omittingEmptySubsequences: false)[column])))
                #expect(date >= cutoff, "\(file.name): \(row)")
            }
            after += counts.onOrAfter
        }
        #expect(after > 0)
        let ux = try #require(result.files.first { $0.kind == "ux" && !$0.name.contains("late") })
        #expect(ux.bytes > 1 << 21, "a file larger than the read buffer, so records cross reads")
    }
}
