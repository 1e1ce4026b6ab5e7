import ArgumentParser
import FunnelBench
import Logging

/// `funnel bench query`: an ad hoc funnel over millions of custom events, beside DuckDB computing
/// the same funnel on the same data in the same run; the answers must agree.
struct BenchQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Time funnel, retention and trends queries over generated events beside DuckDB and ClickHouse.",
        discussion: """
        Generates --events custom events (a signup funnel with drop-off, repeated attempts, an \
        exclusion and noise; EventStreamGenerator) as CSV into a scratch directory, loads them into \
        raw_events of a scratch database next to the selected one with COPY (untimed for the \
        comparison), then times 'funnel query funnel' --step app_opened --step signup_started --step \
        signup_form_submitted --step email_verified --step onboarding_completed --window 1h \
        --exclude app_uninstalled --breakdown platform (first touch), the fastest of --runs. \
        bench/duckdb_funnel.py loads the same CSV into DuckDB and computes the same funnel; its \
        fastest query (load apart) is the baseline. Then ClickHouse (chdb, bench/chdb_query.py, 2 \
        threads, a MergeTree laid out as PostHog's events) is asked the same funnel without the \
        exclusion (its windowFunnel has none) and the D1/D7 retention by first-open day; funnel \
        answers both too, each timed beside ClickHouse, and the bytes stored per event are \
        compared. Both peers are also asked a trends question (app_opened per day: events and \
        distinct users), timed beside 'funnel query trends'. The peers' Python is --duckdb-python (it needs duckdb and chdb: make \
        bench-deps). Exits non-zero when any figure differs.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Events to generate (about a tenth as many users).")
    var events = 10_000_000

    @Option(help: "Random seed of the generated events.")
    var seed: UInt64 = 1

    @Option(help: "Times to run each side's query; the fastest counts.")
    var runs = 2

    @Option(help: ArgumentHelp("Generate into this directory and keep it and the scratch database.", valueName: "dir"))
    var keep: String?

    @Option(name: .customLong("duckdb-python"),
            help: ArgumentHelp("Python interpreter with the duckdb and chdb modules (default: .venv-bench/bin/python, then python3).", valueName: "path"))
    var duckdbPython: String?

    @Option(name: .customLong("duckdb-script"),
            help: ArgumentHelp("The baseline script (default: bench/duckdb_funnel.py here or above the funnel binary).", valueName: "path"))
    var duckdbScript: String?

    @Flag(name: .customLong("no-duckdb"), help: "Skip the DuckDB baseline.")
    var noDuckDB = false

    @Flag(name: .customLong("no-clickhouse"), help: "Skip ClickHouse (chdb) and the questions asked of it.")
    var noClickHouse = false

    func validate() throws {
        guard events >= 1 else { throw ValidationError("--events must be at least 1") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        var logger = logging.bootstrap(label: "funnel.bench")
        if !logging.verbose { logger.logLevel = .warning }
        try QueryBenchmark(events: events, seed: seed, runs: runs, keep: keep, duckdbPython: duckdbPython, duckdbScript: duckdbScript,
                           noDuckDB: noDuckDB, noClickHouse: noClickHouse)
            .run(logger: logger) { try database.connect(logger: logger) }
    }
}
