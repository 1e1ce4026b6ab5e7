import ArgumentParser
import Foundation
import FunnelCompute
import FunnelPipeline

/// `funnel migrate`: creates or upgrades the schema.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade funnel's schema in the database.",
        discussion: """
        Applies the numbered migrations carried in this binary, in order, each in its own \
        transaction. Idempotent: a second run does nothing. Safe to run concurrently (an advisory \
        lock serialises runs). Refuses to run when an applied migration was changed.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Flag(help: "List the migrations not yet applied, and apply nothing.")
    var status = false

    @Flag(help: "Print one JSON document instead of the human summary.")
    var json = false

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.migrate")
        let (connection, _) = try database.connect(logger: logger)
        let migrator = Migrator()
        if status {
            let pending = try migrator.pending(connection)
            if json {
                try printJSON(PendingSummary(pending: pending.map(\.name)))
            } else {
                print(pending.isEmpty ? "schema is up to date" : "pending migrations:\n" + pending.map { "  \($0.name)" }.joined(separator: "\n"))
            }
            return
        }
        do {
            let report = try migrator.migrate(connection, logger: logger)
            if json {
                try printJSON(MigrateSummary(applied: report.applied, alreadyApplied: report.alreadyApplied))
            } else if report.applied.isEmpty {
                print("schema is up to date (\(report.alreadyApplied) migrations already applied)")
            } else {
                print("applied \(report.applied.count) migration(s): \(report.applied.joined(separator: ", "))")
            }
        } catch let error as MigrationError {
            throw CommandFailure("\(error)")
        }
    }
}

private struct PendingSummary: Encodable {
    let pending: [String]
}

private struct MigrateSummary: Encodable {
    let applied: [String]
    let alreadyApplied: Int
}
