import Foundation
public import FunnelCore
public import Logging
public import PostgresClient

/// How a worker treats the queue.
public struct WorkerOptions: Sendable {
    /// Seconds a claim stays valid without renewal; a dead worker's file is taken over after it.
    public var leaseSeconds: Double
    /// Seconds between looks at an empty queue.
    public var pollSeconds: Double
    /// Claims after which a file that keeps failing for temporary reasons is marked failed.
    public var maxAttempts: Int
    /// Claim the largest file first instead of the oldest (several workers sharing one run's
    /// files: the long loads start at once and the small ones fill in beside them).
    public var largestFirst: Bool
    /// How far a compressed file may expand before it is refused.
    public var expansion: ExpansionLimit
    /// Which merge the loader takes (automatic: the bulk merge for large loads, ``BulkMerge``).
    public var mergePath: MergePath
    /// The fewest rows of a kind in a file for which the automatic choice may take the bulk merge.
    public var bulkMinimumRows: Int
    /// The size from which a file of one event kind is staged by two COPY streams and takes the
    /// bulk merge (``FileLoader/splitCopyBytes``).
    public var splitCopyBytes: Int64
    /// `funnel worker`'s own reading settings, for what a queued file was given none of: the
    /// kind of a file queued without one, the zones of its zone-less timestamps (the apps' and
    /// the fallback), and a reject share that wins over the file's.
    public var fallbackKind: EventKind?
    public var fallbackReading = FileReadOptions()
    public var maxRejectShare: Double?

    public init(leaseSeconds: Double = 60, pollSeconds: Double = 1, maxAttempts: Int = 3, largestFirst: Bool = false,
                expansion: ExpansionLimit = ExpansionLimit(), mergePath: MergePath = .automatic, bulkMinimumRows: Int = 50_000,
                splitCopyBytes: Int64 = 64 << 20) {
        self.leaseSeconds = leaseSeconds
        self.pollSeconds = pollSeconds
        self.maxAttempts = maxAttempts
        self.largestFirst = largestFirst
        self.expansion = expansion
        self.mergePath = mergePath
        self.bulkMinimumRows = bulkMinimumRows
        self.splitCopyBytes = splitCopyBytes
    }
}

/// One queue worker: its own connection, claiming and loading files one at a time until the
/// queue is done (for `funnel ingest`) or a stop is requested (for `funnel worker`).
/// Runs on the calling thread and blocks it (libpq is blocking): give each worker a thread.
public final class IngestWorker {
    public let workerID: String
    let settings: ConnectionSettings
    let options: WorkerOptions
    let stop: StopFlag
    let progress: IngestProgress?
    let logger: Logger
    private var connection: PostgresConnection?
    private var loader: FileLoader?
    /// The files this worker loaded itself, with what it loaded of each: a run reports these as
    /// its own, and the other files it waited for as loaded by another run.
    public private(set) var loadedFiles: [Int64: FileLoadCounts] = [:]

    public init(settings: ConnectionSettings, workerID: String, options: WorkerOptions, stop: StopFlag,
                progress: IngestProgress? = nil, logger: Logger) {
        self.settings = settings
        self.workerID = workerID
        self.options = options
        self.stop = stop
        self.progress = progress
        self.logger = logger
    }

    /// A worker id unique across machines: host, process and worker number.
    public static func makeID(index: Int) -> String {
        "\(ProcessInfo.processInfo.hostName):\(getpid()):\(index)"
    }

    /// Loads files until a stop is requested. With `fileIDs`, claims only those and returns once
    /// each is loaded, refused or failed (waiting for ones other workers hold); without, serves
    /// the whole queue and polls it when empty.
    public func run(among fileIDs: [Int64]? = nil) throws {
        while !stop.isSet {
            let (connection, _) = try ready()
            let queue = IngestQueue(connection: connection)
            if let file = try queue.claim(workerID: workerID, leaseSeconds: options.leaseSeconds, among: fileIDs,
                                          largestFirst: options.largestFirst) {
                process(file)
                continue
            }
            if let fileIDs {
                let statuses = try queue.statuses(fileIDs)
                if statuses.values.allSatisfy(\.state.isFinal) { return }
            }
            stop.sleep(seconds: options.pollSeconds)
        }
    }

    private func ready() throws -> (PostgresConnection, FileLoader) {
        if let connection, connection.isHealthy, let loader { return (connection, loader) }
        let fresh = try settings.connect(logger: logger)
        let freshLoader = try FileLoader(connection: fresh, workerID: workerID, leaseSeconds: options.leaseSeconds)
        freshLoader.expansion = options.expansion
        freshLoader.mergePath = options.mergePath
        freshLoader.bulkMinimumRows = options.bulkMinimumRows
        freshLoader.splitCopyBytes = options.splitCopyBytes
        let settings = settings, logger = logger
        freshLoader.connectSecondStream = { try settings.connect(logger: logger) }
        connection = fresh
        loader = freshLoader
        return (fresh, freshLoader)
    }

    /// Loads one claimed file and records the verdict; never throws, so one bad file cannot stop
    /// the worker.
    /// The file as this worker reads it: its own options first, the worker's for what it lacks.
    func withFallbacks(_ file: ClaimedFile) -> ClaimedFile {
        var reading = file.options
        if reading.assumeTimeZone == nil {
            reading.appTimeZones = options.fallbackReading.appTimeZones.merging(reading.appTimeZones) { $1 }
            reading.fallbackTimeZone = reading.fallbackTimeZone ?? options.fallbackReading.fallbackTimeZone
        }
        if let share = options.maxRejectShare { reading.maxRejectShare = share }
        return ClaimedFile(fileID: file.fileID, path: file.path, kind: file.kind ?? options.fallbackKind, options: reading,
                           attempts: file.attempts, ranksAs: file.ranksAs)
    }

    private func process(_ claimed: ClaimedFile) {
        let file = withFallbacks(claimed)
        let started = ContinuousClock.now
        logger.info("loading file", metadata: ["file.id": "\(file.fileID)", "file.path": "\(file.path)"])
        do {
            let (_, loader) = try ready()
            var bytesRead: Int64 = 0
            let counts = try loader.load(file, shouldStop: { stop.isSet }, progress: {
                bytesRead += $1
                progress?.add(rows: $0, bytes: $1)
            })
            loadedFiles[file.fileID] = counts
            progress?.fileDone(bytes: bytesRead)
            let elapsed = ContinuousClock.now - started
            logger.info("file loaded", metadata: [
                "file.path": "\(file.path)", "load.rows": "\(counts.rowsLoaded)",
                "load.duplicates": "\(counts.duplicates)", "load.rejected": "\(counts.rejected)",
                "load.seconds": .string(elapsed.secondsText),
            ])
        } catch let refusal as FileRefusal {
            conclude(file, state: .refused, message: refusal.description)
        } catch let optionError as ReaderOptionError {
            conclude(file, state: .refused, message: "\(file.path): \(optionError.description)")
        } catch LoadInterruption.stopRequested {
            logger.info("stopping: file goes back to the queue", metadata: ["file.path": "\(file.path)"])
            release(file, message: nil)
        } catch let interruption as LoadInterruption {
            logger.warning("\(interruption.description)", metadata: ["file.path": "\(file.path)"])
        } catch let error as PostgresError where error.isTransient && file.attempts < options.maxAttempts {
            logger.warning("temporary failure; file goes back to the queue", metadata: [
                "file.path": "\(file.path)", "db.error": "\(error)",
            ])
            release(file, message: "attempt \(file.attempts): \(error.message)")
        } catch {
            conclude(file, state: .failed, message: "\(file.path): \(error)")
        }
    }

    private func conclude(_ file: ClaimedFile, state: FileStatus.State, message: String) {
        progress?.fileDone()
        logger.warning("file \(state.rawValue)", metadata: ["file.path": "\(file.path)", "reason": "\(message)"])
        do {
            let (connection, _) = try ready()
            try IngestQueue(connection: connection).finish(file, workerID: workerID, status: state, message: message)
        } catch {
            logger.error("could not record the file's state", metadata: ["file.path": "\(file.path)", "db.error": "\(error)"])
        }
    }

    private func release(_ file: ClaimedFile, message: String?) {
        do {
            let (connection, _) = try ready()
            try IngestQueue(connection: connection).release(file, workerID: workerID, message: message)
        } catch {
            logger.error("could not put the file back on the queue; it is taken over when its lease expires",
                         metadata: ["file.path": "\(file.path)", "db.error": "\(error)"])
        }
    }
}

extension Duration {
    /// The duration as a plain number of seconds ("0.026"), for log keys that already name the
    /// unit (`load.seconds`).
    var secondsText: String {
        let (whole, attoseconds) = components
        return String(format: "%.3f", Double(whole) + Double(attoseconds) / 1e18)
    }
}
