import ArgumentParser
import FunnelBench
import FunnelGenerate
import Logging

/// `funnel bench daily`: the daily incremental run (one new day: ingest, compute, report) beside
/// an analyst loading every CSV into DuckDB and running the same queries, in one run.
struct BenchDailyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daily",
        abstract: "Time a daily run (one new day: ingest, compute, report) beside DuckDB over all the CSVs.",
        discussion: """
        Generates a data set as 'funnel generate' does into a scratch directory and splits every file \
        by each kind's time field (UTC) into the history (before the last day) and the last day. In a \
        scratch database next to the selected one (dropped afterwards unless --keep) it ingests the \
        history and computes it, untimed except for context, then VACUUM ANALYZE and CHECKPOINT \
        (what autovacuum and the checkpointer do between two daily runs). Then it times the daily \
        run as 'funnel run' does it: ingest \
        the last day's files, the incremental compute (metrics and onboarding friction) and every \
        report format. The baseline runs bench/duckdb_baseline.py with a Python that has the duckdb \
        module: it loads every generated CSV (history and last day) into an in-memory DuckDB database \
        and computes the same metrics and onboarding friction from scratch, as an analyst would; it runs \
        after a checkpoint, --duckdb-runs times, and the fastest run counts. 'make bench-deps' makes \
        .venv-bench with duckdb; without it the baseline is skipped.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Users acquired from networks and organically (invited users come on top); 300000 x 90 days is about 11M rows.")
    var users = 300_000

    @Option(help: "Days of data, the last (timed) day included.")
    var days = 90

    @Option(help: "Random seed of the generated data.")
    var seed: UInt64 = 1

    @Flag(help: "Keep the scratch directory and database for inspection.")
    var keep = false

    @Option(name: .customLong("duckdb-python"),
            help: ArgumentHelp("Python interpreter with the duckdb module (default: .venv-bench/bin/python, then python3).", valueName: "path"))
    var duckdbPython: String?

    @Option(name: .customLong("duckdb-script"),
            help: ArgumentHelp("The baseline script (default: bench/duckdb_baseline.py here or above the funnel binary).", valueName: "path"))
    var duckdbScript: String?

    @Flag(name: .customLong("no-duckdb"), help: "Skip the DuckDB baseline.")
    var noDuckDB = false

    @Option(name: .customLong("duckdb-runs"),
            help: "Times to run the DuckDB baseline; the fastest counts (this machine's speed varies from run to run).")
    var duckdbRuns = 2

    func validate() throws {
        guard duckdbRuns >= 1 else { throw ValidationError("--duckdb-runs must be at least 1") }
        guard days >= 2 else { throw ValidationError("--days must be at least 2 (history and the last day)") }
        if let problem = GeneratorOptions(outputDirectory: "/tmp", users: users, days: days, seed: seed).problem {
            throw ValidationError(problem)
        }
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        try DailyBenchmark(users: users, days: days, seed: seed, keep: keep, duckdbPython: duckdbPython, duckdbScript: duckdbScript,
                           noDuckDB: noDuckDB, duckdbRuns: duckdbRuns)
            .run(logger: logger) { try database.connect(logger: logger) }
    }
}
