import ArgumentParser
import FunnelBench
import Logging

/// `funnel bench ingest`: a history's import beside PostgreSQL's limit and DuckDB, and the daily
/// path beside plain COPY, in one run.
struct BenchIngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest throughput and peak memory: a history beside COPY's limit and DuckDB, the daily path beside plain COPY.",
        discussion: """
        History: generates a data set as 'funnel generate' does (--history-users x --history-days, \
        every kind), COPYs each file as it is into an unlogged, unindexed all-text table (the limit), \
        imports the same files with 'funnel ingest' into an empty database (the loader picks the bulk \
        merge by itself), and loads them into DuckDB (bench/duckdb_baseline.py --load-only; 'make \
        bench-deps' sets it up, else it is skipped). Daily path: generates --events installs as CSV \
        (about 1% invalid rows) and loads the valid rows by plain COPY FROM STDIN into a copy of \
        raw_installs with the same primary key and indexes (baseline), then by the whole ingest path \
        taking the daily merge. Each part uses fresh databases on the configured server, dropped \
        afterwards. Prints rows/s, ratios and this process's peak memory. --history-runs N runs the \
        limit and the import N times in turn, each on fresh databases, and prints every run's ratio \
        and their median: on a machine whose speed drifts, the median of pairs run side by side is \
        steadier than one pair. --vendor-rows N imports a generated AppsFlyer export of N rows \
        (--source appsflyer) beside the same rows as funnel NDJSON, each into a fresh database, and \
        prints the ratio of their rows/s (docs/imports.md).
        """
    )

    @Option(help: "Installs to generate for the daily path's part.")
    var events = 10_000_000

    @Option(name: .customLong("history-users"), help: "Users of the generated history (300000 x 90 days is about 11M rows).")
    var historyUsers = 300_000

    @Option(name: .customLong("history-days"), help: "Days of the generated history.")
    var historyDays = 90

    @Option(name: .customLong("history-workers"), help: "Workers of the history's import.")
    var historyWorkers = 2

    @Option(name: .customLong("history-runs"), help: "Times the limit and the history's import run, in turn (the median ratio is printed).")
    var historyRuns = 1

    @Flag(name: .customLong("no-history"), help: "Skip the history part.")
    var noHistory = false

    @Flag(name: .customLong("no-daily"), help: "Skip the daily path's part.")
    var noDaily = false

    @Option(name: .customLong("duckdb-python"),
            help: ArgumentHelp("Python interpreter with the duckdb module (default: .venv-bench/bin/python, then python3).", valueName: "path"))
    var duckdbPython: String?

    @Flag(name: .customLong("no-duckdb"), help: "Skip the DuckDB load.")
    var noDuckDB = false

    @Option(name: .customLong("vendor-rows"),
            help: "Rows of a generated AppsFlyer export imported (--source appsflyer) beside the same rows as funnel NDJSON; 0 skips this part.")
    var vendorRows = 0

    @Option(help: "The vendor of --vendor-rows: appsflyer (CSV), segment, firebase or amplitude (NDJSON).")
    var vendor = "appsflyer"

    @Flag(help: "Keep the generated files and the benchmark databases.")
    var keep = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard events >= 1000 else { throw ValidationError("--events must be at least 1000") }
        guard historyWorkers >= 1 else { throw ValidationError("--history-workers must be at least 1") }
        guard historyRuns >= 1 else { throw ValidationError("--history-runs must be at least 1") }
        guard vendorRows >= 0 else { throw ValidationError("--vendor-rows must be 0 or more") }
        guard ["appsflyer", "segment", "firebase", "amplitude"].contains(vendor) else {
            throw ValidationError("--vendor must be appsflyer, segment, firebase or amplitude")
        }
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        var options = IngestBenchmark.Options(
            events: events, historyUsers: historyUsers, historyDays: historyDays, historyWorkers: historyWorkers,
            historyRuns: historyRuns, noHistory: noHistory, noDaily: noDaily, duckdbPython: duckdbPython, noDuckDB: noDuckDB, keep: keep)
        options.vendorRows = vendorRows
        options.vendor = vendor
        try IngestBenchmark.measure(options, logger: logger) { try database.settings(logger: logger) }
    }
}
