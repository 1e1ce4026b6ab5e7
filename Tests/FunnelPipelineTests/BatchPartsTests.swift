import Foundation
import FunnelCore
@testable import FunnelPipeline
import TestSupport
import Testing

/// The parts of the daily job that need no database: retry delays, the inbox scan, the lanes,
/// the report folders and `latest`, the archive, and where the configuration comes from.
@Suite("Daily job parts")
struct BatchPartsTests {
    @Test("retries wait 1, 2, 4, 8, 8 ... seconds until the budget would be passed")
    func retryDelays() {
        #expect(RetryPolicy(totalSeconds: 60).delays == [1, 2, 4, 8, 8, 8, 8, 8, 8])
        #expect(RetryPolicy(totalSeconds: 0.5).delays.isEmpty)
        #expect(RetryPolicy(firstDelay: 2, maximumDelay: 3, totalSeconds: 10).delays == [2, 3, 3])
    }

    @Test("the inbox scan leaves files still being written, hidden files and excluded folders")
    func inboxScan() throws {
        let inbox = try TestCluster.makeTemporaryDirectory(prefix: "inbox")
        defer { try? FileManager.default.removeItem(at: inbox) }
        let archive = inbox.appending(path: "archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        let old = Date(timeIntervalSinceNow: -3600)
        for name in ["installs-1.csv", "opens-1.csv", ".hidden.csv", "archive/installs-0.csv"] {
            let path = inbox.appending(path: name).path
            try Data("app_id\n".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }
        try Data("app_id\n".utf8).write(to: inbox.appending(path: "purchases-1.csv"))
        let scan = try InboxScanner(inbox: inbox, excluded: [archive], settleSeconds: 60, recheckSeconds: 0).scan()
        #expect(scan.ready.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted() == ["installs-1.csv", "opens-1.csv"])
        #expect(scan.stillWriting.map { URL(fileURLWithPath: $0).lastPathComponent } == ["purchases-1.csv"])
    }

    @Test("telemetry files take the second lane; every other file, and a file of unknown kind, the first")
    func lanes() {
        let lanes = DailyLanes(files: ["/in/ux-2024-05-01.csv", "/in/installs.csv.gz", "/in/export.ndjson", "/in/ux.ndjson"])
        #expect(lanes.telemetry == ["/in/ux-2024-05-01.csv", "/in/ux.ndjson"])
        #expect(lanes.events == ["/in/installs.csv.gz", "/in/export.ndjson"])
    }

    @Test("a published folder becomes latest whole; a failed write leaves latest as it was")
    func reportFolders() throws {
        let root = try TestCluster.makeTemporaryDirectory(prefix: "reports")
        defer { try? FileManager.default.removeItem(at: root) }
        let folders = ReportFolders(root: root)
        let date = Date(timeIntervalSince1970: 1_714_560_000)  // 2024-05-01 10:40:00 UTC
        #expect(ReportFolders.folderName(for: date) == "2024-05-01-104000")
        var summary = BatchSummary(status: "completed", startedAt: date, inbox: "/in")
        summary.computeRunId = 7
        let first = try folders.publish(at: date) { partial, _ in
            try JSONEncoder.summary.encode(summary).write(to: partial.appending(path: "run.json"))
        }
        #expect(first.lastPathComponent == "2024-05-01-104000")
        #expect(folders.currentThrough() == 7)
        struct Refused: Error {}
        #expect(throws: Refused.self) { _ = try folders.publish(at: date) { _, _ in throw Refused() } }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folders.latest.path) == "2024-05-01-104000")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["2024-05-01-104000", "latest"])
        try folders.markCurrent(through: 9)
        #expect(folders.currentThrough() == 9)
    }

    @Test("the archive keeps the path inside the inbox and never overwrites")
    func archive() throws {
        let base = try TestCluster.makeTemporaryDirectory(prefix: "archive")
        defer { try? FileManager.default.removeItem(at: base) }
        let inbox = base.appending(path: "inbox/day1")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let archive = Archive(root: base.appending(path: "archive"), inbox: base.appending(path: "inbox"))
        let date = Date(timeIntervalSince1970: 1_714_560_000)
        var moved: [String] = []
        for _ in 0..<2 {
            try Data("x".utf8).write(to: inbox.appending(path: "installs.csv"))
            moved.append(try archive.move(inbox.appending(path: "installs.csv").path, at: date))
        }
        #expect(moved.map { String($0.dropFirst(base.path.count)) }
            == ["/archive/2024-05-01/day1/installs.csv", "/archive/2024-05-01/day1/2-installs.csv"])
    }

    @Test("without --config the configuration comes from FUNNEL_CONFIG; a bad file is a usage error naming the key")
    func configurationSource() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "config")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "funnel.toml")
        try Data("time_zone = \"Asia/Tokyo\"\n".utf8).write(to: file)
        let chosen = try ConfigurationInForce.load(path: nil, environment: ["FUNNEL_CONFIG": file.path, "FUNNEL_HOME": directory.path])
        #expect(chosen.source == file.path && chosen.configuration.timeZone == "Asia/Tokyo")
        let explicit = try ConfigurationInForce.load(path: file.path, environment: [:])
        #expect(explicit.configuration.timeZone == "Asia/Tokyo")
        let bad = directory.appending(path: "bad.toml")
        try Data("revenue_share = 1.3\n".utf8).write(to: bad)
        let failure = #expect(throws: CommandFailure.self) { _ = try ConfigurationInForce.load(path: bad.path, environment: [:]) }
        #expect(failure?.exitStatus == ExitStatus.usage)
        #expect(failure?.message.contains("revenue_share") == true)
    }
}

private extension JSONEncoder {
    /// How `run.json` is written (`FullReportWriter`).
    static var summary: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
