import Foundation
public import FunnelCore
public import Logging
public import PostgresClient

/// One `funnel ingest` run: checksums the files, enqueues them, loads them with N workers (each
/// on its own thread and connection) and reports each file's outcome.
public struct IngestRun: Sendable {
    /// The outcome of one input file.
    public struct FileReport: Sendable, Equatable {
        /// What became of the file, as `--json` and the summary print it.
        public enum Status: String, Sendable {
            /// Loaded by this run (or by another worker while this run waited for it).
            case loaded
            /// Its content was already loaded (or appears twice in this run): nothing to do.
            case skipped
            case refused, failed
            /// Still queued or loading when the run stopped (interrupted).
            case queued, loading
        }

        public let path: String
        public let kind: String?
        public let status: Status
        public let counts: FileLoadCounts
        /// The queue row (for skipped files, the row of the content already loaded).
        public let fileID: Int64?
        /// Why a file was refused or failed, or what it duplicates.
        public let message: String?
    }

    public var settings: ConnectionSettings
    public var kind: EventKind?
    public var assumeTimeZone: String?
    public var workers: Int
    public var workerOptions: WorkerOptions

    public init(settings: ConnectionSettings, kind: EventKind?, assumeTimeZone: String?, workers: Int,
                workerOptions: WorkerOptions = WorkerOptions(pollSeconds: 0.2)) {
        self.settings = settings
        self.kind = kind
        self.assumeTimeZone = assumeTimeZone
        self.workers = max(1, workers)
        self.workerOptions = workerOptions
    }

    /// Runs the whole ingest of `files` (already expanded) and returns one report per file, in
    /// order. A file that cannot be read is reported as refused.
    public func run(files: [String], stop: StopFlag, progress: IngestProgress, logger: Logger) throws -> [FileReport] {
        let checksums = Self.checksums(files, threads: workers)
        let connection = try settings.connect(logger: logger)
        let queue = IngestQueue(connection: connection)
        var pending: [Int: FileReport] = [:]
        var tracked: [Int: Int64] = [:]
        var firstPathOfFile: [Int64: String] = [:]
        for (index, path) in files.enumerated() {
            let fileKind = kind ?? EventKind(fileName: path)
            guard case .success(let checksum) = checksums[index] else {
                if case .failure(let error) = checksums[index] {
                    pending[index] = FileReport(path: path, kind: fileKind?.rawValue, status: .refused,
                                                counts: FileLoadCounts(), fileID: nil, message: "\(error)")
                }
                continue
            }
            switch try queue.enqueue(path: path, kind: fileKind, assumeTimeZone: assumeTimeZone,
                                     sha256: checksum.hex, sizeBytes: checksum.size) {
            case .queued(let fileID):
                tracked[index] = fileID
                firstPathOfFile[fileID] = path
            case .existing(let fileID, let existingPath, let status):
                if status == "loaded" {
                    pending[index] = FileReport(path: path, kind: fileKind?.rawValue, status: .skipped, counts: FileLoadCounts(),
                                                fileID: fileID, message: existingPath == path ? "already loaded" : "same content as \(existingPath), already loaded")
                } else if let first = firstPathOfFile[fileID] {
                    pending[index] = FileReport(path: path, kind: fileKind?.rawValue, status: .skipped, counts: FileLoadCounts(),
                                                fileID: fileID, message: "same content as \(first), loaded in this run")
                } else {
                    tracked[index] = fileID
                    firstPathOfFile[fileID] = path
                }
            }
        }
        let fileIDs = Array(Set(tracked.values)).sorted()
        if !fileIDs.isEmpty {
            try runWorkers(among: fileIDs, stop: stop, progress: progress, logger: logger)
        }
        let statuses = try queue.statuses(fileIDs)
        return files.indices.map { index in
            if let report = pending[index] { return report }
            let fileID = tracked[index]!
            let path = files[index]
            guard let status = statuses[fileID] else {
                return FileReport(path: path, kind: nil, status: .failed, counts: FileLoadCounts(), fileID: fileID,
                                  message: "the queue entry disappeared")
            }
            return FileReport(path: path, kind: status.kind, status: FileReport.Status(rawValue: status.state.rawValue) ?? .failed,
                              counts: status.counts, fileID: fileID, message: status.message)
        }
    }

    private func runWorkers(among fileIDs: [Int64], stop: StopFlag, progress: IngestProgress, logger: Logger) throws {
        let failures = WorkerFailures()
        let group = DispatchGroup()
        var runOptions = workerOptions
        runOptions.largestFirst = workers > 1
        for index in 0..<min(workers, fileIDs.count) {
            group.enter()
            let settings = settings
            let options = runOptions
            let thread = Thread {
                defer { group.leave() }
                let worker = IngestWorker(settings: settings, workerID: IngestWorker.makeID(index: index),
                                          options: options, stop: stop, progress: progress, logger: logger)
                do {
                    try worker.run(among: fileIDs)
                } catch {
                    failures.record(error)
                }
            }
            thread.name = "funnel.worker.\(index)"
            thread.start()
        }
        group.wait()
        if let error = failures.first { throw error }
    }

    private static func checksums(_ files: [String], threads: Int) -> [Result<(hex: String, size: Int64), SHA256.FileError>] {
        let results = ResultSlots<Result<(hex: String, size: Int64), SHA256.FileError>>(count: files.count)
        DispatchQueue.concurrentPerform(iterations: min(max(1, threads), max(1, files.count))) { lane in
            var index = lane
            let lanes = min(max(1, threads), max(1, files.count))
            while index < files.count {
                results.set(index, Result { try SHA256.file(at: files[index]) }.mapError { $0 as! SHA256.FileError })
                index += lanes
            }
        }
        return results.values
    }
}

/// The first error any worker thread hit.
private final class WorkerFailures: @unchecked Sendable {
    // Safe: `errors` is only touched while holding `lock`.
    private let lock = NSLock()
    private var errors: [any Error] = []

    func record(_ error: any Error) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var first: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return errors.first
    }
}
