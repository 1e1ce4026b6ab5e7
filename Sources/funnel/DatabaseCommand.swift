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

    /// The local Citus cluster `db start --citus-workers N` runs, under FUNNEL_HOME/citus.
    static func citusCluster(workers: Int) -> CitusCluster {
        CitusCluster(directory: EmbeddedCluster.defaultDirectory().appending(path: "citus"), workerCount: workers)
    }

    /// How many worker directories a local Citus cluster has (`worker-1`, `worker-2`, ...).
    static func citusWorkersOnDisk() -> Int {
        let directory = EmbeddedCluster.defaultDirectory().appending(path: "citus")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("worker-") }.count
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create (on first use) and start the embedded cluster.",
            discussion: """
            With --citus-workers N, starts a local Citus cluster instead (a coordinator and N workers, \
            each a PostgreSQL on its own Unix socket under FUNNEL_HOME/citus) to try funnel on \
            distributed PostgreSQL; it needs the Citus extension installed (docs/citus.md).
            """)
        @OptionGroup var logging: LoggingOptions
        @Option(name: .customLong("citus-workers"), help: "Start a local Citus cluster with this many workers.")
        var citusWorkers: Int?

        func validate() throws {
            if let citusWorkers, !(1...8).contains(citusWorkers) {
                throw ValidationError("--citus-workers takes 1 to 8 workers")
            }
        }

        func run() throws {
            let logger = logging.bootstrap(label: "funnel.db")
            if let citusWorkers {
                let cluster = DatabaseCommand.citusCluster(workers: citusWorkers)
                do {
                    try cluster.start(logger: logger)
                } catch {
                    throw CommandFailure("\(error)")
                }
                print("Citus coordinator and \(citusWorkers) worker(s) running in \(cluster.directory.path)")
                print("next: export DATABASE_URL='\(cluster.coordinator.url)'; funnel migrate")
                return
            }
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
            let workers = DatabaseCommand.citusWorkersOnDisk()
            if workers > 0 {
                do {
                    if try DatabaseCommand.citusCluster(workers: workers).stop(logger: logger) {
                        print("local Citus cluster stopped")
                    }
                } catch {
                    throw CommandFailure("\(error)")
                }
            }
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
