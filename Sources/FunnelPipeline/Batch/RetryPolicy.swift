import Foundation
import Logging
import PostgresClient

/// How `funnel run` retries a step that failed on a transient database error
/// (`PostgresError.isTransient`: connection lost, server restarting, serialization failure, ...):
/// after 1, 2, 4, 8 ... seconds (each delay capped), until the next wait would pass the total
/// budget. Any other error is not retried.
public struct RetryPolicy: Sendable {
    var firstDelay: Double = 1
    var maximumDelay: Double = 8
    var totalSeconds: Double = 60

    public init(firstDelay: Double = 1, maximumDelay: Double = 8, totalSeconds: Double = 60) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.totalSeconds = totalSeconds
    }

    /// The delays before each retry, in order.
    var delays: [Double] {
        var delays: [Double] = []
        var next = firstDelay
        var total = 0.0
        while total + next <= totalSeconds {
            delays.append(next)
            total += next
            next = min(next * 2, maximumDelay)
        }
        return delays
    }

    /// Runs `body`, retrying transient database errors; `attempt` counts from 1.
    func run<T>(_ step: String, logger: Logger, _ body: (_ attempt: Int) throws -> T) throws -> T {
        let delays = delays
        var attempt = 1
        while true {
            do {
                return try body(attempt)
            } catch let error as PostgresError where error.isTransient && attempt <= delays.count {
                let delay = delays[attempt - 1]
                logger.warning("transient database error, retrying", metadata: [
                    "run.step": .string(step), "retry.attempt": "\(attempt)", "retry.delay_s": "\(delay)",
                    "db.sqlstate": .string(error.sqlState?.rawValue ?? "-"), "db.error": .string(error.message),
                ])
                Thread.sleep(forTimeInterval: delay)
                attempt += 1
            } catch let error as PostgresError where error.isTransient {
                throw RetriesExhausted(step: step, attempts: attempt, last: error)
            }
        }
    }
}

/// A step that kept failing on transient database errors until the retry budget ran out.
public struct RetriesExhausted: Error, CustomStringConvertible {
    let step: String
    let attempts: Int
    let last: PostgresError

    public var description: String {
        "\(step): the database stayed unavailable after \(attempts) attempt(s): \(last.message)"
    }
}
