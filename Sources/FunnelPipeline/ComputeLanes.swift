import Foundation
public import FunnelCompute
public import PostgresClient

/// One compute job as the commands run it (`funnel compute`, `funnel run`, `funnel demo`,
/// `funnel bench daily`). Given settings for a second connection, a job without a date range
/// (incremental or `--full`) runs its two lanes side by side: the metrics on the job's connection,
/// friction on its own thread and connection (it reads only raw rows and its own ledger, so it
/// needs nothing from the metrics; on two cores the job then takes about as long as the longer
/// lane). Otherwise, and without the second connection, they run in turn (`ComputeJob.run`).
///
/// The second connection can first do work the metrics need nothing from (`beforeFriction`:
/// `funnel run` loads the telemetry files there, which only friction reads), so that work too
/// runs beside the metrics.
public struct ComputeLanes: Sendable {
    public let job: ComputeJob

    public init(job: ComputeJob) {
        self.job = job
    }

    /// Runs the job; nil when another compute holds the lock and `options.waitForLock` is false.
    /// - Parameters:
    ///   - alongside: the database for a second connection, on which friction runs while the
    ///     metrics run on `connection`.
    ///   - beforeFriction: work that must be done before friction starts and that the metrics do
    ///     not read: run on the second connection's thread before friction, beside the metrics;
    ///     in turn, before the metrics. Its error fails the job, after the metrics have committed.
    public func run(_ connection: PostgresConnection, options: ComputeOptions, alongside: ConnectionSettings? = nil,
                    beforeFriction: (@Sendable () throws -> Void)? = nil) throws -> ComputeJob.Result? {
        guard let alongside, ComputeJob.runsLanesSideBySide(options) else {
            try beforeFriction?()
            return try job.run(connection, options: options)
        }
        // The job's lock and settings before friction starts, so a busy job does nothing and
        // friction reads the configuration in force.
        guard try job.claim(connection, waitForLock: options.waitForLock) else { return nil }
        defer { job.release(connection) }
        let friction = FrictionLane(job: job, settings: alongside, full: options.full, first: beforeFriction)
        let compute: ComputeSummary?
        do {
            compute = try job.runMetrics(connection, options: options)
        } catch {
            _ = try? friction.wait()
            throw error
        }
        let frictionSummary = try friction.wait()
        guard let compute else { return nil }
        return ComputeJob.Result(compute: compute, friction: frictionSummary)
    }
}

/// Friction on its own thread and connection beside the metrics. `first` runs on the thread
/// before friction connects; when it fails, friction does not run.
private final class FrictionLane: @unchecked Sendable {
    // Safe: `outcome` is written once by the thread before `done` is signalled, and read only
    // after `wait()` has seen the signal.
    private var outcome: Result<FrictionSummary?, any Error> = .success(nil)
    private let done = DispatchSemaphore(value: 0)

    init(job: ComputeJob, settings: ConnectionSettings, full: Bool, first: (@Sendable () throws -> Void)?) {
        let thread = Thread { [self] in
            outcome = Result {
                try first?()
                return try job.catchUpFriction(try settings.connect(logger: job.logger), full: full)
            }
            done.signal()
        }
        thread.name = "funnel.friction"
        thread.start()
    }

    /// Waits for the thread; its summary (nil when nothing was unread), or its error.
    func wait() throws -> FrictionSummary? {
        done.wait()
        return try outcome.get()
    }
}
