import ArgumentParser
import Foundation
import FunnelPipeline
import FunnelSQL
import Logging
import PostgresClient

/// `--database-url`, shared by every command that talks to the database, and the order of
/// selection of docs/configuration.md ("Choosing the database"): the flag, else `DATABASE_URL`,
/// else libpq's `PG*` environment or service file, else the embedded cluster (started on demand).
/// `--demo` selects the demo's own database on the embedded cluster instead, where `funnel demo`
/// writes when no database is selected.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"),
            help: ArgumentHelp("PostgreSQL connection URL or libpq conninfo (default: DATABASE_URL, then PG* variables, then the embedded cluster).",
                               valueName: "url"))
    var databaseURL: String?

    @Flag(help: "Use the demo's own database (funnel_demo on the embedded cluster), where 'funnel demo' writes.")
    var demo = false

    /// Where the connection settings came from, for messages.
    enum Source: Equatable {
        case flag, environmentURL, libpqEnvironment, embedded, demo
    }

    static let libpqVariables = ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"]

    func validate() throws {
        if demo, let databaseURL, !databaseURL.isEmpty {
            throw ValidationError("--demo and --database-url select two different databases: give one of them")
        }
    }

    func source(environment: [String: String] = ProcessInfo.processInfo.environment) -> Source {
        if demo { return .demo }
        if let databaseURL, !databaseURL.isEmpty { return .flag }
        if let url = environment["DATABASE_URL"], !url.isEmpty { return .environmentURL }
        if Self.libpqVariables.contains(where: { environment[$0]?.isEmpty == false }) { return .libpqEnvironment }
        return .embedded
    }

    /// Connection settings for the selected database; the embedded cluster is created and
    /// started first when it is the one selected.
    /// With `forDemo`, an unselected database means the demo's own (`funnel demo`).
    func settings(logger: Logger, forDemo: Bool = false,
                  environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConnectionSettings {
        let conninfo: String
        var selected = source(environment: environment)
        if forDemo && selected == .embedded { selected = .demo }
        switch selected {
        case .flag: conninfo = databaseURL!
        case .environmentURL: conninfo = environment["DATABASE_URL"]!
        case .libpqEnvironment: conninfo = ""
        case .embedded, .demo:
            let cluster = EmbeddedCluster(directory: EmbeddedCluster.defaultDirectory(environment: environment))
            do {
                try cluster.start(logger: logger)
                if selected == .demo { try cluster.ensureDatabase(named: EmbeddedCluster.demoDatabaseName) }
            } catch {
                throw CommandFailure("cannot start the embedded PostgreSQL: \(error)")
            }
            conninfo = selected == .demo ? cluster.conninfo(database: EmbeddedCluster.demoDatabaseName) : cluster.conninfo
        }
        if conninfo.isEmpty == false, ConnectionString.parse(conninfo) == nil {
            throw CommandFailure.usage("the database URL is not a valid PostgreSQL URL or conninfo string")
        }
        return ConnectionSettings(conninfo: conninfo, searchPath: FunnelSchema.searchPath)
    }

    /// Opens a connection to the selected database, with a message that says what to do when
    /// the server cannot be reached.
    func connect(logger: Logger, forDemo: Bool = false) throws -> (PostgresConnection, ConnectionSettings) {
        let settings = try settings(logger: logger, forDemo: forDemo)
        do {
            return (try settings.connect(logger: logger), settings)
        } catch let error as PostgresError where error.isConnectionFailure {
            throw CommandFailure("cannot connect to PostgreSQL at \(settings.redactedDescription): \(error.message)\n"
                + "Check that the server runs and accepts connections, or unset DATABASE_URL/--database-url to use the embedded cluster.")
        }
    }

    /// Opens a connection to the selected database with the schema brought up to date first
    /// (`SchemaUpgrade`).
    func connectMigrated(logger: Logger) throws -> (PostgresConnection, ConnectionSettings) {
        let (connection, settings) = try connect(logger: logger)
        try SchemaUpgrade.ensure(connection, logger: logger)
        return (connection, settings)
    }
}
