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

    /// The local Citus cluster under FUNNEL_HOME/citus, when `db start --citus-workers` made one.
    static func localCitus() -> CitusCluster? {
        let workers = citusWorkersOnDisk()
        return workers > 0 ? citusCluster(workers: workers) : nil
    }

    /// The local Citus cluster when its coordinator runs: the database `db url` reports, since a
    /// command pointed at the single embedded cluster instead would miss the distributed one.
    static func runningCitus() -> CitusCluster? {
        guard let citus = localCitus(), case .running = citus.coordinator.status() else { return nil }
        return citus
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
        static let configuration = CommandConfiguration(
            abstract: "Tell whether the embedded cluster (and a local Citus cluster) exists and runs.")

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
            guard let citus = DatabaseCommand.localCitus() else { return }
            switch citus.coordinator.status() {
            case .running(let pid):
                let running = citus.workers.filter { if case .running = $0.status() { true } else { false } }.count
                print("local Citus cluster: coordinator running (pid \(pid), data in \(citus.coordinator.directory.path)), "
                    + "\(running) of \(citus.workerCount) worker(s) running; funnel db url prints the coordinator's URL "
                    + "(commands reach the cluster with DATABASE_URL set to it)")
            case .stopped, .notInitialized:
                print("local Citus cluster: stopped (data in \(citus.directory.path); "
                    + "funnel db start --citus-workers \(citus.workerCount) starts it)")
            }
        }
    }

    struct URLCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url",
            abstract: "Print the connection URL of the database funnel uses (passwords are never printed).",
            discussion: """
            With --demo, the demo's own database (funnel_demo), where 'funnel demo' writes. \
            While a local Citus cluster runs (funnel db start --citus-workers N), prints its \
            coordinator's URL, the database to point commands at (DATABASE_URL); a note on standard \
            error gives the single embedded cluster's URL when that one runs too.
            """)
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            switch database.source() {
            case .embedded:
                let single = DatabaseCommand.cluster()
                guard let citus = DatabaseCommand.runningCitus() else {
                    print(single.url)
                    return
                }
                print(citus.coordinator.url)
                var note = "funnel: this is the local Citus cluster's coordinator; commands reach the cluster with "
                    + "DATABASE_URL set to it"
                if case .running = single.status() {
                    note += ". The single embedded PostgreSQL runs too, at \(single.url); commands without "
                        + "DATABASE_URL or --database-url use that one"
                }
                FileHandle.standardErrorWrite(note + "\n")
            case .flag, .environmentURL:
                let conninfo = database.databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
                print(ConnectionString.redacted(conninfo))
            case .libpqEnvironment:
                print(ConnectionString.redacted(""))
            case .demo:
                print(DatabaseCommand.cluster().url(database: EmbeddedCluster.demoDatabaseName))
            }
        }
    }
}
