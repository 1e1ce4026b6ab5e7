import ArgumentParser
import Foundation
import FunnelPipeline
import PostgresClient

/// `funnel db`: the embedded PostgreSQL cluster.
struct DatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Manage the embedded PostgreSQL cluster.",
        discussion: """
        With no database configured, funnel runs its own PostgreSQL: created with initdb on first \
        use under FUNNEL_HOME (default ~/.funnel; /var/lib/funnel as root), listening only on a Unix \
        socket in that directory. These commands manage that cluster.
        """,
        subcommands: [Start.self, Stop.self, Status.self, URLCommand.self]
    )

    static func cluster() -> EmbeddedCluster {
        EmbeddedCluster(directory: EmbeddedCluster.defaultDirectory())
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create (on first use) and start the embedded cluster.")
        @OptionGroup var logging: LoggingOptions

        func run() throws {
            let logger = logging.bootstrap(label: "funnel.db")
            let cluster = DatabaseCommand.cluster()
            do {
                switch try cluster.start(logger: logger) {
                case .alreadyRunning:
                    print("embedded PostgreSQL is already running in \(cluster.directory.path)")
                case .started(let initialized):
                    print("embedded PostgreSQL \(initialized ? "created and " : "")started in \(cluster.directory.path)")
                }
                print("next: funnel migrate")
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the embedded cluster.")
        @OptionGroup var logging: LoggingOptions

        func run() throws {
            let logger = logging.bootstrap(label: "funnel.db")
            let cluster = DatabaseCommand.cluster()
            do {
                print(try cluster.stop(logger: logger) ? "embedded PostgreSQL stopped" : "embedded PostgreSQL was not running")
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tell whether the embedded cluster exists and runs.")

        func run() throws {
            let cluster = DatabaseCommand.cluster()
            switch cluster.status() {
            case .notInitialized:
                print("not created yet in \(cluster.directory.path) (funnel db start creates it)")
            case .stopped:
                print("stopped (data in \(cluster.directory.path); funnel db start starts it)")
            case .running(let pid):
                print("running (pid \(pid), data in \(cluster.directory.path))")
            }
        }
    }

    struct URLCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url",
            abstract: "Print the connection URL of the database funnel uses (passwords are never printed).")
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            switch database.source() {
            case .embedded:
                print(DatabaseCommand.cluster().url)
            case .flag, .environmentURL:
                let conninfo = database.databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
                print(ConnectionString.redacted(conninfo))
            case .libpqEnvironment:
                print(ConnectionString.redacted(""))
            }
        }
    }
}
