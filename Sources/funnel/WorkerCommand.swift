import ArgumentParser
import Foundation
import FunnelCore
import FunnelIngest
import FunnelPipeline
import Logging
import PostgresClient

/// `funnel worker`: a long-running ingest worker serving the queue until SIGTERM/SIGINT.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Load queued files until stopped (SIGTERM or SIGINT).",
        discussion: """
        Claims queued files (FOR UPDATE SKIP LOCKED), so any number of workers on any number of \
        machines share one queue through the database. A file whose worker died is taken over \
        once its lease expires. On SIGTERM/SIGINT the worker finishes the merge in progress, or \
        puts the file it is reading back on the queue, and exits 0. Each file is read the way the \
        command that queued it was told (its zones, kind and reject share travel with it on the \
        queue); what it was given none of, the worker's options and [ingest] settings give: \
        --kind for a file queued without a kind, --assume-tz and [[ingest.apps]] for zone-less \
        timestamps, and --max-reject-share over the file's. The expansion limits are the \
        worker's own.
        """
    )

    @Option(help: ArgumentHelp("Seconds a claim lasts without renewal (renewed while reading).", valueName: "seconds"))
    var lease: Double = 60

    @Option(help: ArgumentHelp("Seconds between looks at an empty queue.", valueName: "seconds"))
    var poll: Double = 1

    @Option(help: "Parallel workers in this process, each with its own connection.")
    var workers = 1

    @Option(help: ArgumentHelp("Configuration file (TOML) whose [ingest] table sets zones and limits; default: as for funnel compute.", valueName: "file"))
    var config: String?

    @OptionGroup var reading: FileReadingOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard lease >= 1 else { throw ValidationError("--lease must be at least 1 second") }
        guard poll > 0 else { throw ValidationError("--poll must be positive") }
        guard workers >= 1, workers <= 64 else { throw ValidationError("--workers must be between 1 and 64") }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.worker")
        let settings = try database.connectMigrated(logger: logger).1
        let stop = StopFlag()
        let signals = SignalWatcher(stop: stop, logger: logger)
        defer { signals.cancel() }
        let ingestSettings = try ConfigurationInForce.load(path: config).configuration.ingest
        var options = WorkerOptions(leaseSeconds: lease, pollSeconds: poll, expansion: reading.expansion.limit(ingestSettings))
        options.fallbackKind = reading.eventKind
        options.fallbackReading = FileReadOptions(appTimeZones: ingestSettings.appTimeZones,
                                                  fallbackTimeZone: reading.assumeTimeZone ?? ingestSettings.assumeTimeZone)
        options.maxRejectShare = reading.maxRejectShare
        try WorkerPool(settings: settings, workers: workers, options: options).serve(stop: stop, logger: logger)
    }
}
