import Foundation
import Synchronization
public import FunnelCore
public import Logging
public import PostgresClient

/// One `funnel ingest` run: checksums the files, enqueues them, loads them with N workers (each
/// on its own thread and connection) and reports each file's outcome.
///
/// Another run (or `funnel worker`) may load some of the same files at the same time: the queue
/// gives each file to one worker, and a run reports as loaded, with counts, only the files its own
/// workers loaded; the others are `loadedElsewhere`, naming the worker that loaded them.
public struct IngestRun: Sendable {
    /// The outcome of one input file.
    public struct FileReport: Sendable, Equatable {
        /// What became of the file, as `--json` and the summary print it.
        public enum Status: String, Sendable {
            /// Loaded by this run's workers; the counts are what they loaded.
            case loaded
            /// Loaded by another run's worker while this run waited for it (both had queued the
            /// same content): nothing loaded here, and the counts are zero.
            case loadedElsewhere = "loaded_elsewhere"
            /// Its content was already loaded (or appears twice in this run): nothing to do.
            case skipped
            case refused, failed
            /// Still queued or loading when the run stopped (interrupted).
            case queued, loading

            /// Whether the file's content is in the database, whoever loaded it.
            public var isLoaded: Bool { self == .loaded || self == .loadedElsewhere || self == .skipped }
        }

        /// Who loaded a file whose content is in the database.
        public enum LoadedBy: String, Sendable {
            case thisRun = "this run"
            case anotherRun = "another run"
        }

        public let path: String
        /// The file's kind; for a vendor export named by `--source` or a rule, the vendor.
        public let kind: String?
        public let status: Status
        public let counts: FileLoadCounts
        /// The queue row (for skipped files, the row of the content already loaded).
        public let fileID: Int64?
        /// Why a file was refused or failed, what it duplicates, or who loaded it.
        public let message: String?

        /// This run for `loaded` (and a second copy of a file this run loaded), another run for
        /// `loadedElsewhere` and content loaded before; nil when the file is not loaded.
        public let loadedBy: LoadedBy?

        init(path: String, kind: String?, status: Status, counts: FileLoadCounts, fileID: Int64?, message: String?,
             loadedBy: LoadedBy? = nil) {
            self.path = path
            self.kind = kind
            self.status = status
            self.counts = counts
            self.fileID = fileID
            self.message = message
            self.loadedBy = loadedBy ?? (status == .loaded ? .thisRun : status.isLoaded ? .anotherRun : nil)
        }
    }

    public var settings: ConnectionSettings
    public var kind: EventKind?
    public var assumeTimeZone: String?
    public var workers: Int
    public var workerOptions: WorkerOptions
    /// The `[ingest]` settings: zones per app and per file name, the reject share; `kind` and
    /// `assumeTimeZone` (the command line's) win over a file rule's.
    public var reading = IngestSettings()
    /// The vendor whose export every file is (`--source`), over the files' rules.
    public var source: VendorSource?
    /// `--revenue-minor-units`: the vendor exports' revenue is in minor units.
    public var revenueMinorUnits = false
    /// The app id of an Amplitude export's rows (`--app-id`).
    public var appID: String?
    /// Load content loaded before again (`--retry`): what its first load rejected and the new
    /// options accept is stored; what it stored is not stored twice.
    public var retry = false

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
        try queue.sweepLeftoverLoadTables()
        var pending: [Int: FileReport] = [:]
        var tracked: [Int: Int64] = [:]
        var firstPathOfFile: [Int64: String] = [:]
        /// Files whose content appears earlier in this run: the file id and the first path.
        var copies: [Int: (fileID: Int64, first: String)] = [:]
        var queuedChecksums: Set<String> = []
        for (index, path) in files.enumerated() {
            let fileKind = kindOf(path)
            guard case .success(let checksum) = checksums[index] else {
                if case .failure(let error) = checksums[index] {
                    pending[index] = FileReport(path: path, kind: fileKind?.rawValue, status: .refused,
                                                counts: FileLoadCounts(), fileID: nil, message: "\(error)")
                }
                continue
            }
            // A content given twice in this run is queued (and so retried) once.
            switch try queue.enqueue(path: path, kind: fileKind, options: readOptions(path), sha256: checksum.hex,
                                     sizeBytes: checksum.size, retry: retry && !queuedChecksums.contains(checksum.hex)) {
            case .queued(let fileID):
                tracked[index] = fileID
                firstPathOfFile[fileID] = path
                queuedChecksums.insert(checksum.hex)
            case .existing(let fileID, let existingPath, let status, let rejected):
                if status == "loaded" {
                    var message = existingPath == path ? "already loaded earlier" : "same content as \(existingPath), already loaded earlier"
                    if rejected > 0 {
                        message += " with \(rejected) row\(rejected == 1 ? "" : "s") rejected; pass --retry to load it again "
                            + "with the current options (what it stored is not stored twice)"
                    }
                    pending[index] = FileReport(path: path, kind: fileKind?.rawValue, status: .skipped, counts: FileLoadCounts(),
                                                fileID: fileID, message: message)
                } else if let first = firstPathOfFile[fileID] {
                    copies[index] = (fileID, first)
                } else {
                    tracked[index] = fileID
                    firstPathOfFile[fileID] = path
                }
            }
        }
        let fileIDs = Array(Set(tracked.values)).sorted()
        var runBytes: Int64 = 0
        for index in Set(tracked.keys) where firstPathOfFile[tracked[index]!] == files[index] {
            if case .success(let checksum) = checksums[index] { runBytes += checksum.size }
        }
        progress.setTotal(bytes: runBytes)
        var loadedHere: [Int64: FileLoadCounts] = [:]
        if !fileIDs.isEmpty {
            loadedHere = try runWorkers(among: fileIDs, stop: stop, progress: progress, logger: logger)
        }
        let statuses = try queue.statuses(fileIDs)
        return files.indices.map { index in
            if let report = pending[index] { return report }
            let path = files[index]
            if let copy = copies[index] {
                // A second copy of a file in this run shares the first copy's fate.
                let fileKind = kindOf(path)?.rawValue
                let state = statuses[copy.fileID]?.state ?? .failed
                guard state == .loaded else {
                    return FileReport(path: path, kind: fileKind, status: FileReport.Status(rawValue: state.rawValue) ?? .failed,
                                      counts: FileLoadCounts(), fileID: copy.fileID, message: "same content as \(copy.first)")
                }
                let here = loadedHere[copy.fileID] != nil
                return FileReport(path: path, kind: fileKind, status: .skipped, counts: FileLoadCounts(), fileID: copy.fileID,
                                  message: "same content as \(copy.first), loaded " + (here ? "in this run" : "by another run"),
                                  loadedBy: here ? .thisRun : .anotherRun)
            }
            let fileID = tracked[index]!
            guard let status = statuses[fileID] else {
                return FileReport(path: path, kind: nil, status: .failed, counts: FileLoadCounts(), fileID: fileID,
                                  message: "the queue entry disappeared")
            }
            if status.state == .loaded, loadedHere[fileID] == nil {
                return FileReport(path: path, kind: status.kind, status: .loadedElsewhere, counts: FileLoadCounts(), fileID: fileID,
                                  message: "loaded by another run (worker \(status.worker ?? "unknown")) while this run waited for it")
            }
            let state = FileReport.Status(rawValue: status.state.rawValue) ?? .failed
            // A file with no rows loads (there is nothing wrong in it) but is worth a word: an
            // export that came out empty usually means a broken export job.
            let empty = state == .loaded && status.counts.rowsRead == 0
            return FileReport(path: path, kind: status.kind ?? sourceOf(path)?.rawValue, status: state, counts: status.counts, fileID: fileID,
                              message: empty ? (status.counts.lines.lines == 0 ? "empty file: no header and no rows; check the export that wrote it"
                                                                             : "no rows, only a header; check the export that wrote it")
                                             : status.message)
        }
    }

    /// The same run with `count` workers.
    public func withWorkers(_ count: Int) -> IngestRun {
        var copy = self
        copy.workers = max(1, count)
        return copy
    }

    /// The kind of a file: the command line's, else its `[[ingest.files]]` rule's, else its name's.
    func kindOf(_ path: String) -> EventKind? {
        if sourceOf(path) != nil { return nil }
        return kind ?? reading.rule(for: path)?.kind.flatMap(EventKind.init(rawValue:)) ?? EventKind(fileName: path)
    }

    /// The vendor whose export a file is: the command line's, else its `[[ingest.files]]` rule's.
    func sourceOf(_ path: String) -> VendorSource? {
        source ?? reading.rule(for: path)?.source.flatMap(VendorSource.init(rawValue:))
    }

    /// How a file is read: the command line's zone, else its rule's, for every row; the apps'
    /// zones and `[ingest]`'s for the rest; the reject share.
    func readOptions(_ path: String) -> FileReadOptions {
        var options = FileReadOptions(assumeTimeZone: assumeTimeZone ?? reading.rule(for: path)?.assumeTimeZone,
                                      appTimeZones: reading.appTimeZones, fallbackTimeZone: reading.assumeTimeZone,
                                      maxRejectShare: reading.maxRejectShare, source: sourceOf(path))
        options.revenueMinorUnits = revenueMinorUnits
        options.appID = appID
        return options
    }

    /// Runs the workers until every file is finished; returns the files they loaded.
    private func runWorkers(among fileIDs: [Int64], stop: StopFlag, progress: IngestProgress,
                            logger: Logger) throws -> [Int64: FileLoadCounts] {
        let outcomes = WorkerOutcomes()
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
                    outcomes.record(error)
                }
                outcomes.record(loaded: worker.loadedFiles)
            }
            thread.name = "funnel.worker.\(index)"
            thread.start()
        }
        group.wait()
        if let error = outcomes.firstError { throw error }
        return outcomes.loaded
    }

    /// The files' checksums on `threads` threads, the largest files first, each thread taking the
    /// next file when done (a history's telemetry file is 70% of its bytes: dealt out in turn, one
    /// thread had it and most of the other large files while the other sat idle).
    private static func checksums(_ files: [String], threads: Int) -> [Result<(hex: String, size: Int64), FileChecksum.FileError>] {
        let results = ResultSlots<Result<(hex: String, size: Int64), FileChecksum.FileError>>(count: files.count)
        let sizes = files.map { path in
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
        }
        let order = files.indices.sorted { sizes[$0] > sizes[$1] }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(max(1, threads), max(1, files.count))) { _ in
            while true {
                let position = next.add(1, ordering: .relaxed).oldValue
                guard position < order.count else { return }
                let index = order[position]
                results.set(index, Result { () throws(FileChecksum.FileError) in try FileChecksum.file(at: files[index]) })
            }
        }
        return results.values
    }
}

/// What the worker threads did: the files they loaded and the first error any of them hit.
private final class WorkerOutcomes: @unchecked Sendable {
    // Safe: `errors` and `loadedFiles` are only touched while holding `lock`.
    private let lock = NSLock()
    private var errors: [any Error] = []
    private var loadedFiles: [Int64: FileLoadCounts] = [:]

    func record(_ error: any Error) {
        lock.withLock { errors.append(error) }
    }

    func record(loaded files: [Int64: FileLoadCounts]) {
        lock.withLock { loadedFiles.merge(files) { $1 } }
    }

    var firstError: (any Error)? { lock.withLock { errors.first } }
    var loaded: [Int64: FileLoadCounts] { lock.withLock { loadedFiles } }
}
