import ArgumentParser
import FunnelCompute

/// The `funnel` command: user-acquisition funnel analytics over PostgreSQL.
struct Funnel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "User-acquisition funnel analytics for mobile apps, over PostgreSQL.",
        discussion: """
        Database selection: --database-url, else DATABASE_URL, else libpq's PG* environment or \
        service file (PGHOST, PGSERVICE, ...), else the embedded cluster under FUNNEL_HOME.

        Exit status: 0 success, 1 the job failed, 2 usage error (bad flags or configuration), 75 another run or compute holds the lock.
        """,
        version: FunnelVersion.text,
        subcommands: [
            GenerateCommand.self,
            DatabaseCommand.self,
            MigrateCommand.self,
            IngestCommand.self,
            WorkerCommand.self,
            ComputeCommand.self,
            ReportCommand.self,
            PlanCommand.self,
            QueryCommand.self,
            InputsCommand.self,
            BacktestCommand.self,
            DemoCommand.self,
            RunCommand.self,
            StatusCommand.self,
            AppsCommand.self,
            BenchCommand.self,
        ]
    )
}

/// What `funnel --version` prints: the release and the newest schema migration this binary
/// carries (the schema `funnel migrate` brings a database to).
enum FunnelVersion {
    static let release = "0.1.0"

    static var text: String {
        "funnel \(release) (schema \(Migration.all.last?.name ?? "none"))"
    }
}
