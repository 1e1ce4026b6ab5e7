import ArgumentParser
import FunnelBench
import Logging

/// `funnel bench ingest`: end-to-end ingest throughput beside plain COPY, in one run.
struct BenchIngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest throughput and peak memory beside a plain COPY baseline.",
        discussion: """
        Generates N installs as CSV (about 1% invalid rows), then loads the valid rows twice into a \
        fresh database created (and dropped) on the configured server: by plain COPY FROM STDIN \
        into a copy of raw_installs with the same primary key and indexes (baseline), and by the \
        whole ingest path (checksum, parse, validate, stage, merge, bookkeeping). Prints rows/s of \
        both, their ratio and this process's peak memory.
        """
    )

    @Option(help: "Events to generate.")
    var events = 10_000_000

    @Flag(help: "Keep the generated files and the benchmark database.")
    var keep = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard events >= 1000 else { throw ValidationError("--events must be at least 1000") }
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        try IngestBenchmark.measure(events: events, keep: keep, logger: logger) {
            try database.settings(logger: logger)
        }
    }
}
