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
        transaction, then makes the dash_* views from their files (sql/dashboards; all of them \
        after a migration, else the files changed since they were applied). Idempotent: a second \
        run does nothing. Safe to run concurrently (an advisory lock serialises runs). Refuses to \
        run when an applied migration was changed.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Flag(help: "List the migrations not yet applied (and the dashboard views to make), and apply nothing.")
    var status = false

    @Flag(help: "Print one JSON document instead of the human summary.")
    var json = false

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.migrate")
        let (connection, _) = try database.connect(logger: logger)
        let migrator = Migrator()
        if status {
            let pending = try migrator.pending(connection)
            let views = try migrator.pendingDashboards(connection)
            if json {
                try printJSON(PendingSummary(pending: pending.map(\.name), pendingViews: views))
            } else {
                print(pending.isEmpty ? "schema is up to date" : "pending migrations:\n" + pending.map { "  \($0.name)" }.joined(separator: "\n"))
                if !views.isEmpty { print("dashboard views to make (again): \(views.joined(separator: ", "))") }
            }
            return
        }
        do {
            let report = try migrator.migrate(connection, logger: logger)
            if json {
                try printJSON(MigrateSummary(applied: report.applied, alreadyApplied: report.alreadyApplied, views: report.views,
                                             citusTables: report.citusTables))
            } else if report.applied.isEmpty {
                print("schema is up to date (\(report.alreadyApplied) migrations already applied)"
                    + (report.views.isEmpty ? "" : "; dashboard views made again: \(report.views.joined(separator: ", "))"))
            } else {
                print("applied \(report.applied.count) migration(s): \(report.applied.joined(separator: ", "))")
            }
            if !json, let tables = report.citusTables {
                print("citus: \(tables) tables distributed or replicated as sql/citus/distribute.sql lays them out")
            }
        } catch let error as MigrationError {
            throw CommandFailure("\(error)")
        }
    }
}

private struct PendingSummary: Encodable {
    let pending: [String]
    /// The dashboards files (`sql/dashboards/`) new or changed since they were applied.
    let pendingViews: [String]
}

private struct MigrateSummary: Encodable {
    let applied: [String]
    let alreadyApplied: Int
    /// The dashboard views made (again) after the migrations.
    let views: [String]
    /// On Citus, how many funnel tables Citus holds; absent on plain PostgreSQL.
    let citusTables: Int?
}
