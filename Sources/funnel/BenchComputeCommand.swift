import ArgumentParser
import FunnelBench

/// `funnel bench compute`: full rebuild, one added day, and reading every mart, on synthetic data.
struct BenchComputeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compute",
        abstract: "Time compute: full rebuild, adding one day, reading every mart.",
        discussion: """
        Creates a scratch database next to the selected one (dropped afterwards unless --keep), \
        fills it with deterministic synthetic raw rows written by set-based SQL (about 10 events \
        per user), then times: a full rebuild of days-1 days of history; then, after an untimed \
        VACUUM ANALYZE and CHECKPOINT (what autovacuum and the checkpointer do after a rebuild, as \
        in 'bench daily'), adding one more \
        day of data (new installs plus every existing user's activity that day, written as one loaded \
        ingest file, which compute folds in without dirty marks) and the incremental compute (target under \
        10% of the full rebuild); and reading every mart (target under 200 ms). For scale it also \
        times one plain scan of raw_opens, the largest table, so the rebuild reads as a number of \
        table scans.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Users installing over the history (about 10 events each).")
    var users = 1_000_000

    @Option(help: "Days of history, the added day included.")
    var days = 90

    @Flag(help: "Keep the scratch database for inspection.")
    var keep = false

    func validate() throws {
        guard users >= 100 else { throw ValidationError("--users must be at least 100") }
        guard days >= 3 else { throw ValidationError("--days must be at least 3") }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.bench")
        try ComputeBenchmark(users: users, days: days, keep: keep).run(logger: logger) { try database.connect(logger: logger) }
    }
}
