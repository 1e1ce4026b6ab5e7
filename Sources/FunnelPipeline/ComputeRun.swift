import Foundation
public import FunnelCompute
public import Logging
public import PostgresClient

/// One compute as `funnel compute` runs it: the configuration in force compared
/// with the last compute's (the warning for a change goes to `warn`), the job (metrics and
/// friction, friction on a second connection beside the metrics when `alongside` is given), each
/// of which records the configuration it computed under.
public struct ComputeRun {
    public let configuration: ConfigurationInForce
    public let logger: Logger

    public init(configuration: ConfigurationInForce, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// What one compute did, and how its configuration differs from the last compute's.
    public struct Outcome: Sendable {
        public let result: ComputeJob.Result
        /// Nil when the configuration is the last compute's (or nothing was computed before).
        public let change: ConfigurationChange?
    }

    /// Runs the compute. Another compute holding the lock (without `options.waitForLock`) is a
    /// `CommandFailure` with `ExitStatus.busy`; a bad configuration for the data, a usage error.
    public func run(_ connection: PostgresConnection, options: ComputeOptions, alongside: ConnectionSettings?,
                    warn: (String) -> Void) throws -> Outcome {
        let result: ComputeJob.Result?
        let change: ConfigurationChange?
        do {
            change = try configuration.change(on: connection)
            if let change { warn(change.warning) }
            let job = ComputeJob(configuration: configuration.configuration, source: configuration.source, logger: logger)
            result = try ComputeLanes(job: job).run(connection, options: options, alongside: alongside)
        } catch let error as ComputeError {
            throw CommandFailure.usage(error.message)
        } catch let error as PostgresError where error.sqlState == "42P01" {
            throw CommandFailure("the schema is missing or out of date (\(error.message)); run 'funnel migrate' first")
        }
        guard let result else {
            throw CommandFailure("another compute is running on this database; try again when it finishes"
                + (options.waitForLock ? "" : ", or pass --wait"), exitStatus: ExitStatus.busy)
        }
        return Outcome(result: result, change: change)
    }
}
