import Foundation
import FunnelCore
import FunnelIngest
import IngestFixtures
import Logging
import PostgresClient
import TestSupport

/// A fresh migrated database, a scratch directory, and helpers to ingest files and read rows.
final class LoaderFixture {
    let settings: ConnectionSettings
    let scratch: Scratch
    let connection: PostgresConnection

    init() throws {
        settings = try TestCluster.freshDatabase(migrated: true)
        scratch = try Scratch()
        connection = try settings.connect()
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "funnel.test")
        logger.logLevel = .critical
        return logger
    }

    /// Runs `funnel ingest` in-process on `paths`. The fixture's files hold a few rows, often
    /// mostly bad ones on purpose, so by default no file is refused for its share of rejected rows
    /// (`maxRejectShare` 1); the refusal has tests of its own (NothingLostTests).
    func ingest(_ paths: [String], workers: Int = 1, kind: EventKind? = nil, maxRejectShare: Double = 1) throws -> [IngestRun.FileReport] {
        var run = IngestRun(settings: settings, kind: kind, assumeTimeZone: nil, workers: workers)
        run.reading.maxRejectShare = maxRejectShare
        return try run.run(files: paths, stop: StopFlag(), progress: IngestProgress(), logger: Self.quietLogger)
    }

    func file(_ name: String, _ text: String) throws -> String { try scratch.file(name, text) }

    /// The rows of a query, each as its columns' text (NULL as "∅").
    func rows(_ sql: String) throws -> [[String]] {
        try connection.query(sql).rows.map { row in
            (0..<row.count).map { (try? row.decode(String?.self, at: $0)).flatMap { $0 } ?? "∅" }
        }
    }

    func count(_ sql: String) throws -> Int {
        try connection.query(sql).scalar(Int.self)
    }

    /// The funnel binary built next to the tests (`swift build` / `swift test` build it).
    static var binary: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/funnel").path
    }

    /// Starts `funnel` with `arguments` against this database; output goes to files in scratch.
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--database-url", settings.conninfo]
        var environment = ProcessInfo.processInfo.environment
        environment["FUNNEL_HOME"] = scratch.directory.appendingPathComponent("home").path
        process.environment = environment
        let out = scratch.directory.appendingPathComponent("stdout-\(UUID().uuidString.prefix(6))")
        let err = scratch.directory.appendingPathComponent("stderr-\(UUID().uuidString.prefix(6))")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        outputs[ObjectIdentifier(process)] = (out, err)
        try process.run()
        return process
    }

    private var outputs: [ObjectIdentifier: (URL, URL)] = [:]

    /// Runs `funnel` to completion; returns its exit status and output.
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try start(arguments)
        process.waitUntilExit()
        let (out, err) = outputs[ObjectIdentifier(process)]!
        return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    /// Where a process started with `start` writes its standard output.
    func stdoutURL(of process: Process) -> URL? { outputs[ObjectIdentifier(process)]?.0 }

    func stderr(of process: Process) -> String {
        outputs[ObjectIdentifier(process)].flatMap { try? String(contentsOf: $0.1, encoding: .utf8) } ?? ""
    }

    /// Polls until `condition` holds or `seconds` pass; returns whether it held.
    func wait(seconds: Double, every interval: Double = 0.02, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return try condition()
    }
}
