import Dispatch
import Foundation
public import FunnelIngest
public import Logging

/// SIGTERM/SIGINT handling for long runs: the first signal sets the stop flag (workers finish or
/// roll back the file in hand, then return); the process is not killed by the signal.
public final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    public init(stop: StopFlag, logger: Logger) {
        let queue = DispatchQueue(label: "funnel.signals")
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                logger.info("stop requested: finishing or rolling back the file in hand", metadata: ["signal": "\(number)"])
                stop.set()
            }
            source.resume()
            return source
        }
    }

    /// Stops watching.
    public func cancel() {
        for source in sources { source.cancel() }
    }
}
