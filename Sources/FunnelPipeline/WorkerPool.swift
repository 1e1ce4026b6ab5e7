import Foundation
public import FunnelIngest
public import Logging
public import PostgresClient

/// `funnel worker`: N ingest workers in this process, each on its own thread and connection,
/// serving the queue until `stop` is set (SIGTERM/SIGINT). The first worker to fail stops the
/// others, and its error is the pool's.
public struct WorkerPool: Sendable {
    public let settings: ConnectionSettings
    public let workers: Int
    public let options: WorkerOptions

    public init(settings: ConnectionSettings, workers: Int, options: WorkerOptions) {
        self.settings = settings
        self.workers = workers
        self.options = options
    }

    /// Serves the queue until stopped.
    public func serve(stop: StopFlag, logger: Logger) throws {
        logger.info("worker started", metadata: ["workers": "\(workers)", "db": "\(settings.redactedDescription)"])
        try IngestQueue(connection: settings.connect(logger: logger)).sweepLeftoverLoadTables()
        let group = DispatchGroup()
        let failures = Failures()
        for index in 0..<workers {
            group.enter()
            let thread = Thread { [settings, options] in
                defer { group.leave() }
                let worker = IngestWorker(settings: settings, workerID: IngestWorker.makeID(index: index), options: options,
                                          stop: stop, logger: logger)
                do {
                    try worker.run()
                } catch {
                    failures.record("\(error)")
                    stop.set()
                }
            }
            thread.start()
        }
        group.wait()
        if let failure = failures.first { throw CommandFailure("worker stopped: \(failure)") }
        logger.info("worker stopped")
    }
}

/// The first failure of any worker thread.
private final class Failures: @unchecked Sendable {
    // Safe: `messages` is only touched while holding `lock`.
    private let lock = NSLock()
    private var messages: [String] = []

    func record(_ message: String) { lock.withLock { messages.append(message) } }
    var first: String? { lock.withLock { messages.first } }
}
